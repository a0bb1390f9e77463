import { AuditLog } from '../../audit';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { insideAirlockSandbox } from '../../capture/sandbox';
import { wrapLine } from '../../terminal/fit';
import { shellQuote } from '../../terminal/shell-quote';
import { DIGEST_DISCLOSURE, RequestError, RequestStore } from '../../services/requests';
import { CliError, terminalColumns, UsageError, writeOwnLines, type CliIo, type Command } from '../command';
import { noPositionals, parseFlags, type FlagSpec } from '../flags';
import { describeExtract, describeRequest, rangeText, statusJson } from '../request/render';
import { parseByteCount } from '../size';
import { openTty } from '../tty';
import { openVaultForCli, toCliError } from '../vault-open';
import { subcommands } from '../subcommands';

const USAGE = `Usage:
  airlock request --artifact REF --kind hex-range|digest|text [--range A:B] [--expect HEX]
                  [--search TERM] --reason TEXT [--vault DIR] [--json]
  airlock request status ID [--vault DIR] [--json]
  airlock request list [--state pending|approved|denied|expired] [--vault DIR] [--json]
  airlock request approve ID [--note TEXT] [--vault DIR] [--json]
  airlock request deny ID [--note TEXT] [--vault DIR] [--json]

The review queue for raw access. Raw artifacts stay in the vault; an agent (or anyone) can ask for
a bounded extract of one, and gets it only after a human approved the request at a terminal (or
in the desktop app's prompt window). Who asked, who decided and what was released (its digest
and size, never bytes) go to the vault's audit log.

Kinds:
  hex-range   a hex/caret dump of bytes A:B (end exclusive; at most 64K): notation, never bytes
  digest      the sha256 of A:B, or of the whole artifact (at least 32 bytes: the digest of a few
              bytes gives them away to anyone who tries every value); with --expect HEX also
              whether it matches (one bit)
  text        A:B (default: the whole artifact, at most 1M) through the capture sanitizer: the
              sanitized text and the removal counts; with --search TERM the hits in that text

Requesting queues a pending request and prints its id; 'status ID' says pending, approved (with
the extract), denied or expired (pending requests expire after 24 hours). 'approve' and 'deny'
show the request and read the reviewer's confirmation from the controlling terminal (/dev/tty),
never from stdin: without a terminal they refuse, so a process piping into airlock cannot
approve; inside an Airlock sandbox (where every command an agent runs is) they refuse outright. Refusals (unknown artifact, bad or oversize range, missing reason, bad hex, an option
the kind does not take) exit non-zero with one line on stderr and queue nothing.

Options:
  --artifact REF   restricted:sha256:<hex> reference (from capture's raw_artifacts)
  --range A:B      byte range, end exclusive; offsets as 1048576, 0x40 or 64K
  --expect HEX     (digest) the sha256 the requester expects, 64 hex digits
  --search TERM    (text) a term to find in the sanitized text
  --reason TEXT    why the bytes are needed (the reviewer reads it; recorded)
  --note TEXT      (approve, deny) the reviewer's note (recorded)
  --state S        (list) only requests in this state
  --vault DIR      vault directory (default: $AIRLOCK_VAULT, else $XDG_DATA_HOME/airlock/vault,
                   else ~/.local/share/airlock/vault)
  --json           machine-readable output`;

const CREATE_SPEC: FlagSpec = { '--artifact': 'value', '--kind': 'value', '--range': 'value', '--expect': 'value', '--search': 'value', '--reason': 'value', '--vault': 'value', '--json': 'flag' };
const STATUS_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const LIST_SPEC: FlagSpec = { '--state': 'value', '--vault': 'value', '--json': 'flag' };
const DECIDE_SPEC: FlagSpec = { '--note': 'value', '--vault': 'value', '--json': 'flag' };
const STATES = ['pending', 'approved', 'denied', 'expired'];
/** How many hex digits of the artifact's digest the reviewer types to approve (as in the desktop prompt). */
const CONFIRM_DIGITS = 8;

/** `airlock request`: queue a raw-access request, follow it, and (at a terminal) decide it. */
export const requestCommand: Command = subcommands({
  name: 'request',
  usage: USAGE,
  subcommands: { status, list, approve: (args, io) => decide('approve', args, io), deny: (args, io) => decide('deny', args, io) },
  options: create,
  missing: 'missing options: --artifact, --kind and --reason queue a request (or status, list, approve, deny)',
  unknownHint: 'status, list, approve or deny; or --artifact … to queue',
  asCliError,
});

async function create(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, CREATE_SPEC);
  noPositionals(parsed);
  const v = parsed.values;
  for (const need of ['--artifact', '--kind', '--reason']) if (v[need] === undefined) throw new UsageError(`${need} is required`);
  const range = v['--range'] === undefined ? null : parseRange(v['--range']);
  const store = await openStore(v['--vault'], io);
  const r = await store.create({ artifact: v['--artifact']!, kind: v['--kind']!, range, expect: v['--expect'] ?? null, search: v['--search'] ?? null, reason: v['--reason']! }, 'cli');
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson({ id: r.id, state: r.state, kind: r.kind, artifact: r.artifact, range: r.range, expires_at: r.expires_at })}\n`);
    return 0;
  }
  // The commands it names carry the --vault given here, quoted for a shell, so they can be pasted.
  const vault = v['--vault'] === undefined ? '' : ` --vault ${terminalSafeLine(shellQuote(v['--vault']))}`;
  writeOwnLines(io.stdout, [
    `airlock request: queued ${r.id} (${r.state}): ${r.kind} of ${rangeText(r.range)} of ${r.artifact}`,
    `airlock request: expires ${r.expires_at}; a reviewer decides at a terminal: airlock request approve ${r.id}${vault}`,
    `airlock request: follow it with: airlock request status ${r.id}${vault}`,
  ], 'airlock request:+ ');
  return 0;
}

async function status(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, STATUS_SPEC);
  const id = oneId(parsed.positionals, 'status');
  const store = await openStore(parsed.values['--vault'], io);
  const r = await store.get(id);
  await store.assertReleasable(r);
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson(statusJson(r), 2)}\n`);
    return 0;
  }
  const columns = terminalColumns(io) ?? 80;
  writeOwnLines(io.stdout, describeRequest(r, columns), '    + ');
  if (r.state === 'approved' && r.extract) writeOwnLines(io.stdout, describeExtract(r.extract, columns), '    + ');
  return 0;
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, LIST_SPEC);
  noPositionals(parsed);
  const state = parsed.values['--state'];
  if (state !== undefined && !STATES.includes(state)) throw new UsageError(`--state must be one of ${STATES.join(', ')}`);
  const store = await openStore(parsed.values['--vault'], io);
  const { requests, errors } = await store.list();
  writeOwnLines(io.stderr, errors.map((e) => `warning: unreadable request ${terminalSafeLine(e.file)}: ${terminalSafeLine(e.error)}`), 'warning:+ ');
  // Pending first (what a reviewer has to act on), then newest first.
  const shown = requests.filter((r) => state === undefined || r.state === state).sort((a, b) => Number(b.state === 'pending') - Number(a.state === 'pending') || (a.created_at < b.created_at ? 1 : -1));
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson(shown.map((r) => ({ ...statusJson(r), size: r.size, requester: r.requester, reason: r.reason, expect: r.expect, search: r.search })), 2)}\n`);
    return 0;
  }
  if (shown.length === 0) {
    io.stdout.write(`no ${state ?? ''}${state ? ' ' : ''}requests\n`);
    return 0;
  }
  const rows = shown.map((r) => `${r.id}  ${r.state.padEnd(8)}  ${r.kind.padEnd(9)}  ${rangeText(r.range)}  ${r.artifact.slice(0, 30)}…  ${terminalSafeLine(r.reason).slice(0, 60)}`);
  writeOwnLines(io.stdout, rows, '    + ');
  return 0;
}

async function decide(sub: 'approve' | 'deny', args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, DECIDE_SPEC);
  const id = oneId(parsed.positionals, sub);
  // Whatever an agent runs runs in a sandbox; a decision is a person's. (Inside, the vault is not
  // there either, and /dev has no terminal to answer from: this says why in one line.)
  if (insideAirlockSandbox(io.env)) throw new CliError(`${sub} refuses to run inside an Airlock sandbox: a decision on raw access is made by a person at their own terminal, never by a command an agent runs`);
  const store = await openStore(parsed.values['--vault'], io);
  const r = await store.get(id);
  if (r.state !== 'pending') throw new CliError(`request ${id} is ${r.state}: only a pending request can be ${sub === 'approve' ? 'approved' : 'denied'}`);
  const tty = await (io.openTty ?? openTty)();
  if (!tty) throw new CliError(`${sub} needs a human at an interactive terminal: this process has no controlling terminal (/dev/tty), so nothing was decided`);
  let answer: string | null;
  try {
    const columns = tty.columns ?? 80;
    tty.write(`${describeRequest(r, columns).join('\n')}\n`);
    if (sub === 'approve' && r.kind === 'digest') tty.write(`${wrapLine(`Note: ${DIGEST_DISCLOSURE}`, columns, '  ').join('\n')}\n`);
    const expected = r.sha256.slice(0, CONFIRM_DIGITS);
    tty.write(sub === 'approve'
      ? `Approve: releases this extract to the requester. Type the first ${CONFIRM_DIGITS} hex digits of the artifact's sha256 (${expected}…) to approve: `
      : 'Deny this request? Type "deny" to confirm: ');
    answer = await tty.readLine();
    if ((answer ?? '').trim().toLowerCase() !== (sub === 'approve' ? expected : 'deny')) {
      tty.write('Not confirmed: nothing was decided.\n');
      throw new CliError(`request ${id} was not ${sub === 'approve' ? 'approved' : 'denied'}: the confirmation typed at the terminal did not match`);
    }
  } finally {
    tty.close();
  }
  const note = parsed.values['--note'] ?? null;
  const done = sub === 'approve' ? await store.approve(id, { via: 'cli', note }) : await store.deny(id, { via: 'cli', note });
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson(statusJson(done), 2)}\n`);
    return 0;
  }
  const digest = done.extract_sha256 ? `; extract sha256 ${done.extract_sha256} (${done.extract_bytes} bytes), recorded in the audit log` : '';
  writeOwnLines(io.stdout, `airlock request: ${id} ${done.state}${digest}`, 'airlock request:+ ');
  return 0;
}

async function openStore(vaultFlag: string | undefined, io: CliIo): Promise<RequestStore> {
  const vault = await openVaultForCli(vaultFlag, io);
  return new RequestStore(vault, AuditLog.forVault(vault.root));
}

function oneId(positionals: readonly string[], sub: string): string {
  if (positionals.length !== 1) throw new UsageError(`${sub} needs exactly one request ID`);
  return positionals[0]!;
}

/** `A:B` with the shared offset syntax on each side; end exclusive. */
function parseRange(value: string): [number, number] {
  const m = /^([^:]+):([^:]+)$/.exec(value);
  if (!m) throw new UsageError(`--range needs A:B (end exclusive), like 0:64 or 0x100:0x140, not '${terminalSafeLine(value.slice(0, 40))}'`);
  const a = parseByteCount('--range start', m[1], { allowZero: true });
  const b = parseByteCount('--range end', m[2], { allowZero: true });
  if (a >= b) throw new UsageError(`--range ${a}:${b}: the start must be below the end`);
  return [a, b];
}

/** Review-queue refusals: the caller's phrasing is a usage error (2), the rest a failure (1). */
function asCliError(err: unknown): unknown {
  if (err instanceof RequestError) {
    const message = terminalSafeLine(err.message);
    return err.code === 'bad-request' || err.code === 'bad-id' ? new UsageError(message) : new CliError(message);
  }
  return toCliError(err);
}

