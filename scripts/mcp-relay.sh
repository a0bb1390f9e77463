#!/bin/sh
# The MCP "server" an agent inside scripts/sandboxed-agent.sh starts: copies its stdin to the
# real `airlock mcp` outside the sandbox and that server's output back, through the FIFOs the
# script binds at /tmp/airlock-mcp (a fixed path: MCP clients pass servers little environment).
set -eu
chan=/tmp/airlock-mcp
[ -p "$chan/in" ] || { echo 'mcp-relay.sh: no channel at /tmp/airlock-mcp; run the agent with scripts/sandboxed-agent.sh' >&2; exit 1; }
cat "$chan/out" &
exec cat >"$chan/in"
