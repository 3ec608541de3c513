#!/usr/bin/env bash
# Run a command inside the Debian trixie Swift root made by `setup.sh swift`.
# HOSTDIR is bind-mounted at /work (the command's working directory) and
# /proc is mounted; both are unmounted again when the command ends.
#
# Usage: tests/tools/swift-run.sh HOSTDIR -- CMD [ARG...]
#   e.g. tests/tools/swift-run.sh target/swift -- swiftc main.swift -o main
set -euo pipefail

ROOT=${XBORDER_SWIFT_ROOT:-${XBORDER_CACHE:-$HOME/.cache/xborder}/swift-root}
if [ $# -lt 3 ] || [ "$2" != -- ]; then
  echo "usage: $0 HOSTDIR -- CMD [ARG...]" >&2; exit 2
fi
HOSTDIR=$(cd "$1" && pwd); shift 2
[ -x "$ROOT/bin/sh" ] || { echo "swift-run: no root at $ROOT (run: bash tests/tools/setup.sh swift)" >&2; exit 1; }

# In a private mount namespace the mounts also vanish if this script is killed,
# and concurrent runs do not see each other's mounts.
if [ -z "${XBORDER_SWIFT_NS:-}" ] && unshare --mount true 2>/dev/null; then
  XBORDER_SWIFT_NS=1 exec unshare --mount --propagation private bash "$0" "$HOSTDIR" -- "$@"
fi

cleanup() {
  umount -l "$ROOT/work" 2>/dev/null || true
  umount -l "$ROOT/proc" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$ROOT/work"
mount -t proc proc "$ROOT/proc"
mount --bind "$HOSTDIR" "$ROOT/work"
chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/sh -c 'cd /work && exec "$@"' sh "$@"
