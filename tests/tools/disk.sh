#!/usr/bin/env bash
# Checks, before anything is built, that the test command has the disk it needs: a run from a clean
# clone writes about 8 GB (target/ about 7 GB, the npm consumers, the databases and logs in the
# temporary folder). Without it the run fails half an hour in, on whichever step is writing then
# ("No space left on device"). XBORDER_MIN_FREE_GB sets the floor (default 9; 0 skips the check).
set -euo pipefail
cd "$(dirname "$0")/../.."
need=${XBORDER_MIN_FREE_GB:-9}
tmp=${TMPDIR:-/tmp}
free_gb() { df -Pk "$1" | awk 'NR==2 { printf "%d", $4 / 1048576 }'; }
here=$(free_gb .); there=$(free_gb "$tmp")
echo "disk: $here GB free for target/ ($(pwd)), $there GB free in $tmp; the run needs about $need GB"
[ "$need" -gt 0 ] || { echo "disk: check skipped (XBORDER_MIN_FREE_GB=0)"; exit 0; }
if [ "$here" -lt "$need" ]; then
  echo "disk: only $here GB free where target/ is written: free at least $need GB (old target/ folders, clones) and run again" >&2
  exit 1
fi
if [ "$there" -lt 2 ]; then
  echo "disk: only $there GB free in $tmp (the databases and browsers write there): free at least 2 GB or set TMPDIR" >&2
  exit 1
fi
