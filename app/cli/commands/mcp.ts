import { planSandbox, SandboxError, sandboxHidePaths, type SandboxPlan } from '../../capture/sandbox';
import { serveStdio } from '../../mcp/serve';
import { resolveVaultDir, Vault } from '../../node/vault';
import { CliError, UsageError, type Command } from '../command';
import { parseFlags, type FlagSpec } from '../flags';
import { parseSandboxMode } from '../sandbox-flag';
import { toCliError } from '../vault-open';

const USAGE = `Usage: airlock mcp [--vault DIR] [--sandbox bwrap|auto|none --allow-unsandboxed]

Serves the Model Context Protocol on stdin/stdout for coding agents (Claude Code, VS Code, Codex,
any MCP client). Tools: capture (run a command through Airlock; sanitized output with
provenance), read_text (page a record's sanitized text by lines or around a search term),
list_records (recent captures), screen (the printed text a person watching the terminal never saw:
overwritten, erased, concealed, same colour). No tool returns raw bytes or where they are. Every capture is
stored in the vault and audited ('capture.stored', via mcp).

Commands run in the bubblewrap sandbox (see 'airlock capture --help', --sandbox): the server
refuses to start where bwrap cannot run, because a command outside it can write to this server's
stdout (the agent's protocol stream) through /proc and read the vault.

  --vault DIR            vault directory, created if missing (default as for capture)
  --sandbox MODE         bwrap (default); auto or none only with --allow-unsandboxed
  --allow-unsandboxed    accept running commands without the sandbox (auto: where bwrap does
                         not work; none: never). Commands can then reach the vault and this
                         server's streams; use only where the agent is confined otherwise

Exit status: 0 when the client closed the connection; 1 when the vault cannot be opened or the
sandbox cannot run; 2 for usage errors.`;

const SPEC: FlagSpec = { '--vault': 'value', '--sandbox': 'value', '--allow-unsandboxed': 'flag' };

/** `airlock mcp`: the MCP server for agents, on stdio. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: USAGE,
  async run(args, io) {
    const { values, flags, positionals } = parseFlags(args, SPEC);
    if (positionals.length > 0) throw new UsageError('mcp takes no arguments');
    const mode = parseSandboxMode(values['--sandbox'], 'bwrap');
    if (mode !== 'bwrap' && !flags.has('--allow-unsandboxed')) {
      throw new UsageError(`--sandbox ${mode} lets commands reach the vault and the server's own streams; add --allow-unsandboxed to accept that`);
    }
    let vault: Vault;
    try {
      vault = await Vault.open(resolveVaultDir(values['--vault'], io.env, io.cwd), { create: true });
    } catch (err) {
      throw toCliError(err);
    }
    let sandbox: SandboxPlan;
    try {
      sandbox = await planSandbox(mode, { hide: sandboxHidePaths(vault.root, io.env) }, io.env);
    } catch (err) {
      if (err instanceof SandboxError) throw new CliError(`${err.message}; install bubblewrap or run with --sandbox auto --allow-unsandboxed`);
      throw err;
    }
    await serveStdio({ vault, sandbox, env: io.env, cwd: io.cwd, stdin: io.stdin, stdout: io.stdout });
    return 0;
  },
};
