# Loopback ports for the throwaway servers of the shell scripts (tests/servers/redis.sh,
# tests/servers/postgres.sh): sourced, not run.
#
# A port is taken outside the kernel's ephemeral range: a client's port there, even one in
# TIME_WAIT after a run of thousands of connections, makes a server's bind fail ("Address already
# in use") while a connect test says the port is free.

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A loopback port nothing listens on, below the ephemeral range when there is room there.
free_port() {
  local lo=32768 hi=60999 p base span
  if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
    read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
  fi
  if [ "$lo" -gt 12000 ]; then base=10000; span=$((lo - 10000)); else base=$((hi + 1)); span=$((65535 - hi)); fi
  [ "$span" -gt 0 ] || { base=20000; span=40000; }
  for _ in $(seq 1 200); do
    p=$((base + RANDOM % span))
    if ! port_in_use "$p"; then echo "$p"; return 0; fi
  done
  return 1
}
