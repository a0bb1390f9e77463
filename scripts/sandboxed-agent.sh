#!/bin/sh
# Runs a coding agent inside bubblewrap with Airlock's vault hidden from it, and `airlock mcp`
# outside, so neither the agent nor anything it runs directly can read the raw vault or reach
# the server's process. The two talk over a pair of FIFOs bound into the sandbox at
# /tmp/airlock-mcp; inside, the agent's MCP client starts `sh /path/to/scripts/mcp-relay.sh` as
# its server (also in $AIRLOCK_MCP_RELAY, for clients that pass their environment on).
#
#   scripts/sandboxed-agent.sh [--vault DIR] -- AGENT [ARGS...]
#
# The agent keeps its working directory and $HOME writable (it needs its own config), the rest
# of the file system read-only, a private /tmp, its own PID namespace, no controlling terminal.
# One MCP session per run: the server serves the first client that opens the channel.
set -eu
data="${XDG_DATA_HOME:-$HOME/.local/share}/airlock"
vault="${AIRLOCK_VAULT:-$data/vault}"
if [ "${1:-}" = --vault ]; then vault=$2; shift 2; fi
if [ "${1:-}" = -- ]; then shift; fi
[ $# -gt 0 ] || { echo 'usage: sandboxed-agent.sh [--vault DIR] -- AGENT [ARGS...]' >&2; exit 2; }
command -v bwrap >/dev/null || { echo 'sandboxed-agent.sh: bwrap (bubblewrap) is not installed' >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
umask 077
mkdir -p "$vault"
vault=$(cd "$vault" && pwd -P)
chan=$(mktemp -d)
mkfifo "$chan/in" "$chan/out"
node "$root/app/bin/airlock.js" mcp --vault "$vault" <"$chan/in" >"$chan/out" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$chan"' EXIT
hide="--tmpfs $vault"
if [ -d "$data" ]; then hide="$hide --tmpfs $(cd "$data" && pwd -P)"; fi
caps=""
if [ "$(id -u)" = 0 ]; then caps="--cap-drop ALL"; fi
status=0
# $hide and $caps are split on purpose (paths with spaces are not supported here).
# shellcheck disable=SC2086
AIRLOCK_MCP_RELAY="$root/scripts/mcp-relay.sh" bwrap \
  --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp \
  --bind "$HOME" "$HOME" --bind "$PWD" "$PWD" --bind "$chan" /tmp/airlock-mcp $hide \
  --unshare-pid --unshare-ipc --die-with-parent --new-session $caps --chdir "$PWD" \
  -- "$@" || status=$?
wait "$server" 2>/dev/null || true
exit "$status"
