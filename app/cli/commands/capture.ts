import { stat } from 'node:fs/promises';
import {
  childEnvironment,
  commandString,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_TEXT,
  MAX_TEXT_CEILING,
  probeBwrap,
  EXIT_CANNOT_EXECUTE,
  EXIT_NOT_FOUND,
  LiveRows,
  SpawnError,
  captureOptionsEnd,
  splitCaptureArgs,
  type CaptureEnvelope,
} from '../../capture';
import { AuditAppendError, AuditUnavailableError, captureToVault } from '../../capture/stored-capture';
import { parseNetworkMode, parseSandboxMode, sandboxForCli } from '../sandbox-flag';
import { SandboxError } from '../../capture/sandbox';
import { parseDuration } from '../duration';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { resolveVaultDir, Vault } from '../../vault';
import { toCliError } from '../vault-open';
import type { FlagSpec } from '../flags';
import { CliError, terminalColumns, UsageError, type Command } from '../command';
import { readLimitFlags } from '../limit-flags';
import { parseByteCount } from '../size';
import { writeAll } from '../write';
import { parseCrMode } from './sanitize';
import { AllowlistFileError, type RedactMode } from '../../redact/policy';

const USAGE = `Usage: airlock capture [OPTIONS] [--] CMD [ARGS...]

Runs CMD over pipes (never a terminal; stdin is /dev/null; the child runs in its own session and
process group, without a controlling terminal), asks it for plain output (NO_COLOR=1, TERM=dumb,
CLICOLOR=0, FORCE_COLOR=0, PAGER=cat, GIT_PAGER=cat; CLICOLOR_FORCE and COLORTERM removed), and
sanitizes stdout and stderr separately as the bytes arrive. The raw bytes go only into the vault
(0600, content-addressed); a record links their digests to the sanitized text, the removal
reports and a chunk log. The audit log gets 'capture.started' before the command runs (if it
cannot, nothing runs) and 'capture.stored' (committing to the record's sha256) or
'capture.failed' after. Options end at -- or at the first argument that is not an option.

  --vault DIR       vault directory, created if missing (default: $AIRLOCK_VAULT, else
                    $XDG_DATA_HOME/airlock/vault, else ~/.local/share/airlock/vault)
  --json            print one JSON envelope instead of the readable rendering
  --max-bytes N     hard cap on raw bytes captured, both streams together (default 64M); past it
                    the command's process group gets SIGTERM, then SIGKILL after 2 s, and the
                    envelope says "truncated": true
  --max-text N      sanitized text kept per stream for the envelope and record (default 1M, at
                    most 4M): the first and the last half; what was left out is stated in
                    "text_truncated"
  --max-string N    payload bytes one OSC/DCS/APC/PM/SOS string may hold before it counts as oversized
  --max-csi N       parameter bytes one CSI may hold before it counts as oversized
  --cr MODE         newline (default) or overwrite; see 'airlock sanitize --help'
  --timeout DUR     stop the command after DUR (45s, 30m, 12h); default: no limit
  --env K=V         set K for the command (repeatable, overrides the plain-output defaults);
                    --env K removes K
  --sandbox MODE    auto (default), bwrap or none. bwrap runs the command in bubblewrap, in a
                    file system built from a list: the system directories (/usr, /etc, /opt) and
                    $HOME read-only, the working directory writable, /tmp (below), a fresh /proc,
                    a /dev without terminals; nothing else of the host, and never the vault or
                    Airlock's data directory. Own user, PID and network namespaces and session;
                    no descriptor of Airlock's but the output pipes. auto uses bwrap where it
                    works and else runs without; the envelope's "sandbox" says which ran and why
  --network MODE    (with the sandbox) none, outbound or host. Default: outbound where
                    slirp4netns is installed (other hosts reachable, never this host's 127.0.0.1
                    services nor its abstract sockets: X11, D-Bus), else none (loopback only).
                    host shares this host's network, with a warning
  --redact MODE     on (default) or off: suspected secrets (cloud keys, tokens, private keys,
                    passwords in URLs, ...) in the sanitized text become ⟦redacted:RULE⟧; the
                    envelope's "redaction" says which policy ran (docs/secrets.md)

/tmp: your capture sees the host's /tmp read-only as you do (so 'cat /tmp/x.log' works), without
its sockets and FIFOs and the X11 socket directory, over a private /tmp it can write (files it
writes there stay in the sandbox). An agent's capture through 'airlock mcp' gets an empty private
/tmp and an empty private $HOME instead. A failed command that names a path the sandbox does not
show gets a "hint" in the envelope's "sandbox" (and a line in the readable output) saying why.

SIGINT, SIGTERM or SIGHUP to airlock stop the command the same way (its process group gets
SIGTERM, then SIGKILL) and what it wrote is still stored and printed.

Exit status: the command's exit code, or 128+N when signal N ended it; 124 when Airlock stopped
it at --timeout and 125 when it stopped it at --max-bytes (the output is cut short; exit_code and
signal in the envelope still say how the command ended); 127 when the command does not exist,
126 when it cannot be executed (nothing is stored then); 2 for usage errors; 1 when the vault or
its audit log cannot take the capture (checked before the command runs).`;

const SPEC: FlagSpec = {
  '--vault': 'value',
  '--json': 'flag',
  '--max-bytes': 'value',
  '--max-text': 'value',
  '--max-string': 'value',
  '--max-csi': 'value',
  '--cr': 'value',
  '--timeout': 'value',
  '--env': 'list',
  '--sandbox': 'value',
  '--network': 'value',
  '--redact': 'value',
};

/** Signals that make capture stop the command and still store what it captured. */
const INTERRUPTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** `airlock capture`: run a command over pipes, store raw bytes in the vault, print the sanitized envelope. */
export const captureCommand: Command = {
  name: 'capture',
  usage: USAGE,
  ownOptions: (args) => args.slice(0, captureOptionsEnd(args, SPEC)),
  async run(args, io) {
    const { options, env: edits, argv } = splitCaptureArgs(args, SPEC);
    const values = options.values;
    const maxBytes = values['--max-bytes'] ? parseByteCount('--max-bytes', values['--max-bytes']) : DEFAULT_MAX_BYTES;
    const maxText = values['--max-text'] ? parseByteCount('--max-text', values['--max-text']) : DEFAULT_MAX_TEXT;
    if (maxText > MAX_TEXT_CEILING) throw new UsageError(`--max-text can be at most ${MAX_TEXT_CEILING / 1024 / 1024}M (the vault's bound on one record); the raw bytes keep everything`);
    const cr = parseCrMode(values['--cr']);
    const limits = readLimitFlags(values);
    const timeoutMs = values['--timeout'] ? parseTimeout(values['--timeout']) : null;
    const sandboxMode = parseSandboxMode(values['--sandbox']);
    const network = parseNetworkMode(values['--network']);
    const redact = parseRedactMode(values['--redact']);
    const shown = terminalSafeLine(commandString(argv).slice(0, 200));
    // Whether bubblewrap works is asked now (a child process; the answer is cached), so it runs
    // while the vault is opened and its audit log checked instead of after.
    if (sandboxMode !== 'none') void probeBwrap(io.env).catch(() => undefined);

    const cwdStat = await stat(io.cwd).catch(() => null);
    if (!cwdStat?.isDirectory()) throw new CliError(`working directory ${terminalSafeLine(io.cwd)} does not exist`);
    // The vault is opened (and created) before the command runs: a capture that cannot be
    // stored must not run the command at all.
    let vault: Vault;
    try {
      vault = await Vault.open(resolveVaultDir(values['--vault'], io.env, io.cwd), { create: true });
    } catch (err) {
      throw toCliError(err);
    }

    const { env, summary } = childEnvironment(io.env, edits);
    const sandbox = await sandboxForCli(sandboxMode, vault.root, io.env, { profile: 'human', network, warn: (line) => io.stderr.write(`${line}\n`) });
    // The readable output is written as the command runs (a terminal or a pipe alike); --json
    // keeps one envelope at the end.
    const json = options.flags.has('--json');
    const columns = terminalColumns(io);
    const rows = json
      ? null
      : new LiveRows({
          columns: columns ?? Infinity,
          budget: maxText,
          write: (text) => io.stdout.write(text),
          drained: () => new Promise((resolve) => io.stdout.once('drain', resolve)),
        });
    const interrupt = new AbortController();
    const onSignal = (): void => interrupt.abort();
    for (const sig of INTERRUPTS) process.on(sig, onSignal);
    let envelope: CaptureEnvelope;
    try {
      ({ envelope } = await captureToVault({
        vault, argv, cwd: io.cwd, env, envSummary: summary, maxBytes, maxText, cr, limits, timeoutMs, sandbox, signal: interrupt.signal, redact,
        observer: rows ?? undefined,
        onStart: (id) => rows?.begin(id, commandString(argv)),
      }));
    } catch (err) {
      if (err instanceof SpawnError) throw spawnFailure(err, shown);
      if (err instanceof AuditUnavailableError) {
        const e = toCliError(err.cause);
        throw new CliError(`the audit log cannot record a capture, so ${shown} was not run: ${terminalSafeLine(e instanceof Error ? e.message : String(e))}`);
      }
      if (err instanceof AuditAppendError) throw new CliError(terminalSafeLine(err.message));
      if (err instanceof SandboxError) throw new CliError(`${shown} was not run: ${terminalSafeLine(err.message)}`);
      if (err instanceof AllowlistFileError) throw new CliError(`redaction allowlist: ${terminalSafeLine(err.message)} (nothing was run)`);
      const mapped = toCliError(err);
      if (mapped instanceof CliError) throw mapped;
      throw new CliError(`capture of ${shown} failed, nothing was stored: ${terminalSafeLine(String((err as Error)?.message ?? err))}`);
    } finally {
      for (const sig of INTERRUPTS) process.off(sig, onSignal);
    }
    if (rows) await rows.finish(envelope, columns);
    else await writeAll(io.stdout, `${terminalSafeJson(envelope, 2)}\n`);
    return envelope.exit_status;
  },
};

function parseRedactMode(value: string | undefined): RedactMode {
  if (value === undefined || value === 'on') return 'on';
  if (value === 'off') return 'off';
  throw new UsageError(`--redact takes on or off, not '${terminalSafeLine(value.slice(0, 40))}'`);
}

/** The longest delay a Node timer can wait (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function parseTimeout(value: string): number {
  let ms = NaN;
  try {
    ms = parseDuration(value);
  } catch {
    // reported below
  }
  if (ms > MAX_TIMEOUT_MS) throw new UsageError(`--timeout can be at most 24d (about 24.8 days), not '${terminalSafeLine(value.slice(0, 40))}'`);
  if (ms > 0) return ms;
  throw new UsageError(`--timeout needs a positive duration like 45s, 30m or 12h, not '${terminalSafeLine(value.slice(0, 40))}'`);
}

/** No child ran: 127 for a missing command, 126 for one that cannot be executed, like a shell. */
function spawnFailure(err: SpawnError, shown: string): CliError {
  // The sandbox says why a command that exists on the host is not in its view.
  const why = /ENOENT: (.+)$/.exec(err.message)?.[1];
  if (err.code === 'ENOENT') return new CliError(`command not found: ${shown} (nothing was run or stored)${why ? `; ${terminalSafeLine(why)}` : ''}`, EXIT_NOT_FOUND);
  if (err.code === 'EACCES' || err.code === 'ENOEXEC' || err.code === 'EISDIR') {
    return new CliError(`cannot execute ${shown}: ${err.code} (nothing was run or stored)`, EXIT_CANNOT_EXECUTE);
  }
  return new CliError(`cannot start ${shown}: ${terminalSafeLine(err.message)} (nothing was run or stored)`, EXIT_CANNOT_EXECUTE);
}
