import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { signalGroup } from '../../capture/process-group';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { airlockDataDir, SandboxError } from '../../capture/sandbox';
import { RELAY_MOUNT, RELAY_SCRIPT, startRelay } from '../../mcp/relay';
import { resolveVaultDir, Vault } from '../../vault';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { CliError, UsageError, type Command } from '../command';
import { parseFlags, type FlagSpec } from '../flags';
import { parseNetworkMode, sandboxForCli } from '../sandbox-flag';
import { toCliError } from '../vault-open';

const USAGE = `Usage: airlock agent [--vault DIR] [--network none|outbound|host] [--ro DIR]... -- AGENT [ARGS...]
(also: scripts/sandboxed-agent.sh ...)

Runs a coding agent in Airlock's agent sandbox, with 'airlock mcp' served outside it. The agent
sees the system directories read-only, its $HOME and working directory writable (it keeps its
configuration there), a private /tmp, a fresh /proc, a /dev without terminals and, in its own
network namespace, the network as --network says (default: outbound through slirp4netns where
installed: it reaches its model's API, never this host's 127.0.0.1 services or abstract sockets
such as X11's). Airlock's vault and data directory are never in its view: where they lie inside
its $HOME or working directory they are covered, and the directories on the way to them cannot
be renamed. It cannot approve raw access: 'airlock request approve' refuses inside a sandbox.

The agent reaches Airlock only through a Unix socket at ${RELAY_MOUNT}/mcp.sock, in a directory
only its sandbox shows (every command it captures through Airlock runs in a stricter sandbox of
its own that shows neither that directory nor the vault). Configure the agent's MCP server as
'sh ${RELAY_SCRIPT}' (also in $AIRLOCK_MCP_RELAY). Each connection is its own MCP session.

  --vault DIR       vault directory, created if missing (default as for capture)
  --network MODE    the agent's network: none, outbound or host (host: with a warning); the
                    commands it captures get the default (outbound where available, else none)
  --ro DIR          also show DIR read-only (the agent's installation, if outside the system
                    directories and $HOME); repeatable

Exit status: the agent's; 1 when the vault, the relay or the sandbox cannot be set up; 2 for
usage errors.`;

const SPEC: FlagSpec = { '--vault': 'value', '--network': 'value', '--ro': 'list' };

/** `airlock agent`: a coding agent in the agent sandbox, Airlock's MCP server outside it. */
export const agentCommand: Command = {
  name: 'agent',
  usage: USAGE,
  ownOptions: (args) => {
    const end = args.indexOf('--');
    return end < 0 ? args : args.slice(0, end);
  },
  async run(args, io) {
    const end = args.indexOf('--');
    if (end < 0 || end === args.length - 1) throw new UsageError('give the agent to run after --');
    const parsed = parseFlags(args.slice(0, end), SPEC);
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected '${terminalSafeLine(parsed.positionals[0].slice(0, 40))}' before --`);
    const argv = args.slice(end + 1);
    const network = parseNetworkMode(parsed.values['--network']);
    const readOnly = (parsed.lists['--ro'] ?? []).map((d) => {
      const dir = resolve(io.cwd, d);
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--ro ${terminalSafeLine(d)}: not a directory`);
      return dir;
    });
    let vault: Vault;
    try {
      vault = await Vault.open(resolveVaultDir(parsed.values['--vault'], io.env, io.cwd), { create: true });
    } catch (err) {
      throw toCliError(err);
    }
    const warn = (line: string): void => void io.stderr.write(`${line}\n`);
    // What the agent captures runs as an MCP capture does: the strict sandbox, default network.
    const captures = await sandboxForCli('bwrap', vault.root, io.env, { profile: 'strict', warn });
    const relay = await startRelay({ dataDir: airlockDataDir(io.env), relayScript: relayScriptPath(), vault, sandbox: captures, env: io.env, cwd: io.cwd }).catch((err: unknown) => {
      throw new CliError(`the relay could not be set up: ${terminalSafeLine(String((err as Error).message))}`);
    });
    try {
      const sandbox = await sandboxForCli('bwrap', vault.root, io.env, {
        profile: 'agent',
        network,
        warn,
        mounts: [{ source: relay.dir, dest: RELAY_MOUNT }, ...readOnly.map((d) => ({ source: d, dest: d, readOnly: true }))],
      });
      const env = { ...io.env, AIRLOCK_MCP_RELAY: RELAY_SCRIPT };
      let launch;
      try {
        launch = await sandbox.launch!(argv, io.cwd, env);
      } catch (err) {
        if (err instanceof SandboxError || (err as { name?: string }).name === 'SpawnError') throw new CliError(`the agent was not started: ${terminalSafeLine((err as Error).message)}`);
        throw err;
      }
      // Its own process group, so a failed setup stops all of bwrap before the command could run.
      const child = spawn(launch.argv[0], launch.argv.slice(1), { cwd: io.cwd, env, stdio: ['inherit', 'inherit', 'inherit', ...launch.extraStdio], detached: true });
      launch.release?.();
      const exited = new Promise<number>((done) => child.on('close', (code, signal) => done(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15))));
      const extra = launch.extraStdio.map((kind, i) => {
        if (kind !== 'pipe') return null;
        const pipe = child.stdio[3 + i] as unknown as Duplex;
        pipe.on('error', () => undefined);
        return pipe;
      });
      const undo = await launch.started!({ extra }).catch(async (err: unknown) => {
        if (child.pid) signalGroup(child.pid, 'SIGKILL');
        await exited;
        throw new CliError(`the agent's sandbox could not be set up, so it did not start: ${terminalSafeLine(String((err as Error).message))}`);
      });
      const status = await exited;
      await undo();
      return status;
    } finally {
      await relay.close();
    }
  },
};

/** scripts/mcp-relay.sh of this installation (beside dist/ or app/, whichever this runs from). */
function relayScriptPath(): string {
  const here = fileURLToPath(import.meta.url);
  for (const up of ['..', '../..', '../../..']) {
    const candidate = join(here, up, 'scripts', 'mcp-relay.sh');
    if (isAbsolute(candidate) && existsSync(candidate)) return candidate;
  }
  throw new CliError('scripts/mcp-relay.sh is missing from this installation');
}
