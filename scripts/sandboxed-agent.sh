#!/bin/sh
# Runs a coding agent inside Airlock's agent sandbox with `airlock mcp` outside it: the agent and
# everything it runs directly see no vault and no Airlock data directory (the vault's ancestors in
# their writable $HOME and working directory cannot be renamed), no host /tmp, /proc, /dev
# terminals, loopback or abstract sockets; they reach Airlock only through the relay socket the
# launcher shows at /run/airlock/mcp.sock. Inside, the agent's MCP client starts
# `sh /run/airlock/mcp-relay.sh` as its server (also in $AIRLOCK_MCP_RELAY).
#
#   scripts/sandboxed-agent.sh [--vault DIR] [--network none|outbound|host] [--ro DIR]... -- AGENT [ARGS...]
#
# See `airlock agent --help`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
exec node "$root/app/bin/airlock.js" agent "$@"
