#!/usr/bin/env bash
# `npm test`'s runner: mocha, in a private network namespace where only loopback exists.
#
# Why: the tests send packets to this machine only (127.255.255.255, 127.0.0.x), but Homebridge, HAP and mDNS
# listen on every address and multicast, so their end-to-end tests run only where no other interface exists
# (test/homebridge-plugin/e2e-harness.ts refuses otherwise). A network namespace gives that to everyone:
#   root:           unshare --net --pid --fork --kill-child
#   ordinary user:  unshare --user --map-root-user --net --pid --fork --kill-child (a user namespace; the
#                   kernel must allow ordinary users those, as most distributions do)
# --pid with --kill-child: every process the tests start (Homebridge, Node-RED, virtual fleets) ends with the run.
# A new namespace's loopback is down: `ip link set lo up`, or, without iproute2, perl (SIOCSIFFLAGS).
#
# Usage: scripts/test.sh [mocha arguments...]   (npm test -- test/x.test.ts passes them here)
# Mocha adds the files named on its command line to .mocharc.json's "spec" (all the tests) instead of running
# only them; so when an argument names an existing file or folder, or is a *.ts glob, mocha is given
# .mocharc.json without "spec" (a copy in a temporary file) and runs just what was named.
# Already in such a namespace (this process sees no interface but lo): runs mocha directly.
# Where no namespace can be made, prints one line saying what to do and exits 2 before running anything.
#
# Interfaces are read from /proc/self/net/dev, which lists every interface of this process's namespace, up or
# down (/sys/class/net shows the namespace that mounted /sys, not ours).
set -euo pipefail

say() { printf 'npm test: %s\n' "$*" >&2; }

# Names of the interfaces this process sees, other than lo.
other_interfaces() {
  awk -F: 'NR > 2 { gsub(/ /, "", $1); if ($1 != "lo") printf "%s ", $1 }' /proc/self/net/dev
}

# Sets loopback up in the current network namespace.
lo_up() {
  if command -v ip >/dev/null 2>&1; then
    ip link set lo up
  else
    # struct ifreq: 16-byte name, then the flags (short); SIOCGIFFLAGS 0x8913, SIOCSIFFLAGS 0x8914, IFF_UP 1.
    perl -e 'socket(my $s, 2, 2, 0) or die "socket: $!\n"; my $r = pack("a16 x24", "lo");
      ioctl($s, 0x8913, $r) or die "SIOCGIFFLAGS lo: $!\n";
      ioctl($s, 0x8914, pack("a16 s x22", "lo", unpack("x16 s", $r) | 1)) or die "SIOCSIFFLAGS lo: $!\n"'
  fi
}

# Runs mocha with the arguments given; see Usage for the spec rule.
run_mocha() {
  local arg named=0
  for arg in "$@"; do
    case "$arg" in
      -*) ;;
      *.ts) named=1 ;;
      *) [ -e "$arg" ] && named=1 ;;
    esac
  done
  # Not exec: inside the namespace this shell is its PID 1, and stays so to reap what the tests leave orphaned.
  if [ "$named" -eq 0 ]; then
    mocha "$@"
    return
  fi
  local config status=0
  config=$(mktemp --suffix=.json "${TMPDIR:-/tmp}/lightwire-mocharc.XXXXXX")
  node -e 'const c = JSON.parse(require("node:fs").readFileSync(".mocharc.json", "utf8")); delete c.spec; process.stdout.write(JSON.stringify(c));' >"$config"
  mocha --config "$config" "$@" || status=$?
  rm -f "$config"
  return "$status"
}

case "${1:-}" in
  --lightwire-probe)      # inside a candidate namespace: can loopback come up?
    lo_up
    exit 0
    ;;
  --lightwire-isolated)   # inside the namespace this script made
    shift
    lo_up
    others=$(other_interfaces)
    if [ -n "$others" ]; then
      say "the new network namespace still has interfaces other than lo ($others); not running the tests"
      exit 2
    fi
    run_mocha "$@"
    exit
    ;;
esac

if [ ! -r /proc/self/net/dev ]; then
  say "runs on Linux only (it isolates the tests in a network namespace); elsewhere run npx mocha, and the Homebridge end-to-end test will refuse to start"
  exit 2
fi

others=$(other_interfaces)
if [ -z "$others" ]; then
  run_mocha "$@"
  exit
fi

if ! command -v unshare >/dev/null 2>&1; then
  say "needs unshare (util-linux) to run the tests in a private network namespace; install util-linux"
  exit 2
fi
if ! command -v ip >/dev/null 2>&1 && ! command -v perl >/dev/null 2>&1; then
  say "needs ip (iproute2) or perl to bring up loopback in the tests' network namespace; install iproute2"
  exit 2
fi

self=$(readlink -f "$0")
candidates=()
[ "$(id -u)" -eq 0 ] && candidates+=("--net --pid --fork --kill-child")
candidates+=("--user --map-root-user --net --pid --fork --kill-child")
failure=
for flags in "${candidates[@]}"; do
  # shellcheck disable=SC2086 # flags is a list of options
  if failure=$(unshare $flags bash "$self" --lightwire-probe 2>&1); then
    # shellcheck disable=SC2086
    exec unshare $flags bash "$self" --lightwire-isolated "$@"
  fi
done

failure=$(printf '%s' "$failure" | head -n 1)
if [ "$(id -u)" -eq 0 ]; then
  say "cannot create a private network namespace (${failure:-unshare failed}); in a container, give it CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN) or run npm test on the host"
else
  say "cannot create a private network namespace as an ordinary user (${failure:-unshare failed}): allow user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0) or run npm test as root"
fi
exit 2
