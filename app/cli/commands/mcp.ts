import type { SandboxPlan } from '../../capture/sandbox';
import { serveStdio } from '../../mcp/serve';
import { resolveVaultDir, Vault } from '../../vault';
import { UsageError, type Command } from '../command';
import { parseFlags, type FlagSpec } from '../flags';
import { parseNetworkMode, parseSandboxMode, sandboxForCli } from '../sandbox-flag';
import { toCliError } from '../vault-open';

const USAGE = `Usage: airlock mcp [--vault DIR] [--network none|outbound|host] [--sandbox bwrap|auto|none --allow-unsandboxed]

Serves the Model Context Protocol on stdin/stdout for coding agents (Claude Code, VS Code, Codex,
any MCP client). Tools: capture (run a command through Airlock; sanitized, redacted output with
provenance; progress notifications while it runs; background: true returns the record at once),
wait (a capture's state, or its result once it ended), read_text (page a record's sanitized text,
also while it runs, by lines or around a search term), list_records (recent captures), screen
(the printed text a person watching the terminal never saw: overwritten, erased, concealed, same
colour), request_raw and request_status (ask a person for raw bytes; only a person approves, at a
terminal). No tool returns raw bytes or where they are without that approval. Every capture is
stored in the vault and audited ('capture.stored', via mcp).

Commands run in the bubblewrap sandbox (see 'airlock capture --help', --sandbox), stricter than a
person's capture: an empty private /tmp and an empty private $HOME (only the tool directories on
PATH and git's configuration read-only in it), the working directory the call names writable, the
vault and Airlock's data directory never in view, whatever the working directory. The server
refuses to start where bwrap cannot run, because a command outside it can write to this server's
stdout (the agent's protocol stream) through /proc and read the vault.

  --vault DIR            vault directory, created if missing (default as for capture)
  --network MODE         none, outbound or host for every capture (default: outbound where
                         slirp4netns is installed, else none); the agent cannot choose another
  --sandbox MODE         bwrap (default); auto or none only with --allow-unsandboxed
  --allow-unsandboxed    accept running commands without the sandbox (auto: where bwrap does
                         not work; none: never). Commands can then reach the vault and this
                         server's streams; use only where the agent is confined otherwise

Exit status: 0 when the client closed the connection; 1 when the vault cannot be opened or the
sandbox cannot run; 2 for usage errors.`;

const SPEC: FlagSpec = { '--vault': 'value', '--sandbox': 'value', '--allow-unsandboxed': 'flag', '--network': 'value' };

/** `airlock mcp`: the MCP server for agents, on stdio. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: USAGE,
  async run(args, io) {
    const { values, flags, positionals } = parseFlags(args, SPEC);
    if (positionals.length > 0) throw new UsageError('mcp takes no arguments');
    const mode = parseSandboxMode(values['--sandbox'], 'bwrap');
    const network = parseNetworkMode(values['--network']);
    if (mode !== 'bwrap' && !flags.has('--allow-unsandboxed')) {
      throw new UsageError(`--sandbox ${mode} lets commands reach the vault and the server's own streams; add --allow-unsandboxed to accept that`);
    }
    let vault: Vault;
    try {
      vault = await Vault.open(resolveVaultDir(values['--vault'], io.env, io.cwd), { create: true });
    } catch (err) {
      throw toCliError(err);
    }
    const sandbox: SandboxPlan = await sandboxForCli(mode, vault.root, io.env, { profile: 'strict', network, warn: (line) => io.stderr.write(`${line}\n`) });
    await serveStdio({ vault, sandbox, env: io.env, cwd: io.cwd, stdin: io.stdin, stdout: io.stdout });
    return 0;
  },
};
