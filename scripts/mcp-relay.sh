#!/bin/sh
# The MCP "server" an agent inside scripts/sandboxed-agent.sh starts: copies its stdin to the
# real `airlock mcp` outside the sandbox and that server's output back, through the FIFOs in
# $AIRLOCK_MCP_CHANNEL.
set -eu
: "${AIRLOCK_MCP_CHANNEL:?run the agent with scripts/sandboxed-agent.sh}"
cat "$AIRLOCK_MCP_CHANNEL/out" &
exec cat >"$AIRLOCK_MCP_CHANNEL/in"
