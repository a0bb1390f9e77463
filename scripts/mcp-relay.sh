#!/bin/sh
# The MCP "server" an agent inside `airlock agent` (scripts/sandboxed-agent.sh) starts: joins its
# stdin and stdout to the real `airlock mcp` outside the sandbox, through the Unix socket the
# launcher shows only to the agent, at /run/airlock/mcp.sock (a fixed path: MCP clients pass
# servers little environment). Captured commands never see that directory. The launcher copies
# this script beside the socket and names it in $AIRLOCK_MCP_RELAY.
set -eu
sock=/run/airlock/mcp.sock
[ -S "$sock" ] || { echo 'mcp-relay.sh: no relay socket at /run/airlock/mcp.sock; run the agent with scripts/sandboxed-agent.sh' >&2; exit 1; }
exec node -e '
const s = require("node:net").connect(process.argv[1]);
s.on("error", (e) => { process.stderr.write(`mcp-relay.sh: ${e.message}\n`); process.exit(1); });
process.stdin.pipe(s);
s.pipe(process.stdout);
s.on("end", () => process.exit(0));
' "$sock"
