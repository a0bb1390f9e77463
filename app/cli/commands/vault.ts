import { AuditLog } from '../../audit';
import { parseDuration } from '../duration';
import { wrapLine } from '../../terminal/fit';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { formatRef, type CaptureRecord, type Vault } from '../../vault';
import { noPositionals, parseFlags, type FlagSpec } from '../flags';
import { assertVaultWritable, openVaultForCli, toCliError } from '../vault-open';
import { captureTime, commandLine, exitCodeText, exitText, headOf, recordField } from '../../vault/display';
import type { ScanResult } from '../../vault/records';
import { RequestStore } from '../../services/requests';
import { writeAll } from '../write';
import { CliError, terminalColumns, UsageError, writeOwnLines, type CliIo, type Command } from '../command';
import { subcommands } from '../subcommands';
import { findRecordId } from '../vault/find-record';
import { sealLeftovers } from '../vault/seal-leftovers';
import { followRunning } from '../vault/follow';
import { runningJson, runningLine, runningRows } from '../vault/running-list';
import { writeRecord, type StreamText } from '../vault/show';
import { writeRecordJson } from '../vault/show-json';
import { SUMMARY_LIMITS } from '../../vault/records';
import { IMPORT_HELP, IMPORT_USAGE } from '../vault/import-usage';

const USAGE = `Usage:
  airlock vault list   [--vault DIR] [--json]
  airlock vault show   ID|PREFIX|latest [--vault DIR] [--json]
  airlock vault follow ID|latest [--vault DIR]
  airlock vault verify [--vault DIR] [--json]
  airlock vault prune  [--raw-older-than DURATION] [--raw-with-secrets-older-than DURATION] [--dry-run] [--vault DIR] [--json]
${IMPORT_USAGE}

List, inspect, verify and prune the restricted vault of captures. Output is metadata and
sanitized text only; raw bytes are never printed.

Options:
  --vault DIR                 vault directory (default: $AIRLOCK_VAULT, which must be absolute,
                              else $XDG_DATA_HOME/airlock/vault, else ~/.local/share/airlock/vault)
  --json                      machine-readable output
  --raw-older-than DURATION   prune raw bytes of records older than DURATION (45s, 30m, 12h, 7d),
                              and what was derived from them: approved extracts, span indexes,
                              bookmarks, screen caches; records and sanitized text are kept
  --raw-with-secrets-older-than DURATION
                              (prune) a shorter retention for raw bytes whose record notes
                              suspected secrets (raw_suspected_secrets; docs/secrets.md)
  --dry-run                   (prune) say what would be pruned, change nothing

list orders records by capture time, then the captures still running (RUNNING; their state is
"running" in --json). follow shows a running capture's sanitized text as it grows, as capture
shows it, until it ends ('latest': the newest running capture). A capture whose Airlock process
was killed is sealed by the next vault command as a record marked interrupted, with what it had
stored and a 'capture.interrupted' audit entry. show takes a record id, a unique prefix of one, or
'latest'. verify re-hashes the raw files and holds every record, prune marker and request
against the audit entry that made it (any edit is 'edited', a file no entry vouches for
'unbound'); it exits 1 when it finds a problem. prune exits 1 when it refused to delete because
a record is unreadable. Records are read one at a time: memory does not grow with their size.

${IMPORT_HELP}`;

const LIST_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const SHOW_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const FOLLOW_SPEC: FlagSpec = { '--vault': 'value' };
const VERIFY_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const PRUNE_SPEC: FlagSpec = { '--vault': 'value', '--raw-older-than': 'value', '--raw-with-secrets-older-than': 'value', '--dry-run': 'flag', '--json': 'flag' };

/** `airlock vault`: list/show/verify/prune the capture vault, import a file into it. */
export const vaultCommand: Command = subcommands({
  name: 'vault',
  usage: USAGE,
  subcommands: { list, show, follow, verify, prune, import: async (args, io) => (await import('../vault/import')).vaultImport(args, io) },
});

type RawStatus = 'present' | 'pruned' | 'missing';

async function rawStatus(vault: Vault, record: CaptureRecord): Promise<RawStatus> {
  if (record.raw_pruned_at !== undefined) return 'pruned';
  for (const ref of Object.values(record.raw)) if (!(await vault.hasRaw(ref.sha256))) return 'missing';
  return 'present';
}

async function follow(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, FOLLOW_SPEC);
  if (parsed.positionals.length !== 1) throw new UsageError('follow takes one record id, or latest');
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  return followRunning(vault, parsed.positionals[0], io);
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, LIST_SPEC);
  noPositionals(parsed);
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  await sealLeftovers(vault, io);
  const json = parsed.flags.has('--json');
  // On a terminal a row wider than it continues on rows that begin with `+`, so the terminal
  // never wraps a command onto a row of its own; `vault show` has the whole command.
  const columns = terminalColumns(io) ?? Infinity;
  let count = 0;
  // Records are read one at a time and written as they come, so memory does not grow with the
  // vault. Ids sort by the second the capture started; within a second, by its start time.
  for await (const r of inCaptureOrder(vault.eachRecord())) {
    if (!r.ok) {
      writeOwnLines(io.stderr, `warning: unreadable record ${terminalSafeLine(r.file)}: ${terminalSafeLine(r.error)}`, 'warning:+ ');
      continue;
    }
    const rec = r.record;
    if (json) {
      const row = {
        id: rec.id,
        created_at: rec.created_at,
        command: headOf(recordField(rec, 'command')) ?? null,
        exit_code: exitCodeText(rec) === '-' ? null : Number(exitCodeText(rec)),
        signal: typeof recordField(rec, 'signal') === 'string' ? recordField(rec, 'signal') : null,
        raw: Object.fromEntries(Object.entries(rec.raw).map(([st, ref]) => [st, { ...ref, ref: formatRef(ref.sha256) }])),
        raw_status: await rawStatus(vault, rec),
        raw_pruned_at: rec.raw_pruned_at ?? null,
        state: rec.state === 'interrupted' ? 'interrupted' : 'stored',
        argv: argvOf(rec),
      };
      await writeAll(io.stdout, `${count === 0 ? '[\n' : ',\n'}${terminalSafeJson(row, 2).replace(/^/gm, '  ')}`);
    } else {
      const sizes = Object.entries(rec.raw)
        .map(([st, ref]) => `${st} ${ref.size} B`)
        .join(', ');
      const line = [rec.id, terminalSafeLine(rec.created_at), exitText(rec), sizes || 'no streams', `raw ${await rawStatus(vault, rec)}`, commandLine(rec)].join('  ');
      await writeAll(io.stdout, wrapLine(line, columns, '    + ').map((row) => `${row}\n`).join(''));
    }
    count++;
  }
  // Running captures come last: they started after every record they do not have yet.
  for (const row of await runningRows(vault)) {
    if (json) await writeAll(io.stdout, `${count === 0 ? '[\n' : ',\n'}${runningJson(row)}`);
    else await writeAll(io.stdout, runningLine(row, columns));
    count++;
  }
  if (json) await writeAll(io.stdout, count === 0 ? '[]\n' : '\n]\n');
  else if (count === 0) io.stdout.write(`no records in vault ${terminalSafeLine(vault.root)}\n`);
  return 0;
}

/** The argv a record's metadata names (strings only), or null. */
function argvOf(rec: CaptureRecord): string[] | null {
  const argv = recordField(rec, 'argv');
  return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : null;
}

/**
 * Records from an id-ordered stream in capture order: ids begin with the second a capture
 * started, so only records of the same second are held back and sorted by their start time.
 */
async function* inCaptureOrder(records: AsyncIterable<ScanResult>): AsyncGenerator<ScanResult> {
  let batch: ScanResult[] = [];
  const second = (r: ScanResult): string => r.id.slice(0, 16);
  const time = (r: ScanResult): number => (r.ok ? captureTime(r.record) : 0);
  const flush = function* (): Generator<ScanResult> {
    yield* batch.sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : 1));
    batch = [];
  };
  for await (const r of records) {
    if (batch.length > 0 && second(batch[0]) !== second(r)) yield* flush();
    batch.push(r);
  }
  yield* flush();
}

async function show(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, SHOW_SPEC);
  if (parsed.positionals.length !== 1) throw new UsageError('show needs exactly one record ID, a unique prefix of one, or latest');
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  await sealLeftovers(vault, io);
  const id = await findRecordId(vault, parsed.positionals[0]!);
  const write = (s: string): Promise<void> => writeAll(io.stdout, s);
  if (parsed.flags.has('--json')) {
    // The record holds sanitized text, digests and reports; no raw bytes live in records. It is
    // re-written as it is read (terminal-safe), so a record of any size is shown in bounded memory.
    await writeRecordJson(vault, id, write);
    return 0;
  }
  const { record } = await vault.scanRecord(id);
  const stored: Record<string, boolean> = {};
  for (const [stream, ref] of Object.entries(record.raw)) stored[stream] = await vault.hasRaw(ref.sha256);
  const text: StreamText = async (path, piece, drain) => {
    const want = path.join('\u0000');
    await vault.scanRecord(id, { ...SUMMARY_LIMITS, stream: (p) => p.join('\u0000') === want, onText: (_p, t) => piece(t) }, drain);
  };
  await writeRecord(record, { rawStatus: await rawStatus(vault, record), stored }, terminalColumns(io), text, write);
  return 0;
}

async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, VERIFY_SPEC);
  noPositionals(parsed);
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  await sealLeftovers(vault, io);
  const report = await vault.verify();
  const unfinished = report.unfinished.map((u) => `note: capture ${u.record} started (audit entry ${u.seq}) and has no stored or failed entry: it crashed, was killed, or could not be stored`);
  const bytes = (seen: Record<string, number>, stored: Record<string, number>): string =>
    Object.keys(seen).map((s) => `${s} ${stored[s] ?? 0} of ${seen[s]} B`).join(', ');
  for (const i of report.interrupted) {
    unfinished.push(`note: capture ${i.record} was interrupted: the Airlock process running it${i.owner_pid === null ? '' : ` (pid ${i.owner_pid})`} ended before the command did (killed, or the machine stopped); a later vault command sealed what had reached the vault (raw ${bytes(i.raw_bytes_seen, i.raw_bytes_stored)} the capture had received), bound to its capture.interrupted audit entry`);
  }
  for (const row of await runningRows(vault)) unfinished.push(`note: capture ${row.id} is running (pid ${row.pid}${row.owner === 'other-host' ? ' on another host' : ''}): its record is sealed when it ends`);
  const counts: Record<string, number> = {};
  for (const p of report.problems) counts[p.problem] = (counts[p.problem] ?? 0) + 1;
  const ok = report.problems.length === 0;
  try {
    await AuditLog.forVault(vault.root).append('vault.verified', {
      ok,
      problems: report.problems.length,
      raw_files: report.rawFiles,
      records: report.records,
      by_kind: counts,
    });
  } catch (err) {
    const e = toCliError(err);
    throw new CliError(`could not record the verification in the audit log: ${terminalSafeLine(e instanceof Error ? e.message : String(e))}`);
  }
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson({ ok, raw_files: report.rawFiles, records: report.records, by_kind: counts, problems: report.problems, unfinished: report.unfinished, interrupted: report.interrupted, running: (await runningRows(vault)).map((r) => ({ id: r.id, pid: r.pid, owner: r.owner })) }, 2)}\n`);
    return ok ? 0 : 1;
  }
  const columns = terminalColumns(io) ?? Infinity;
  for (const p of report.problems) {
    const subject = p.sha256 ?? terminalSafeLine(p.path);
    const line = `${p.problem.padEnd(10)} ${subject}  ${terminalSafeLine(p.detail)}${p.sha256 ? `  (${terminalSafeLine(p.path)})` : ''}`;
    for (const row of wrapLine(line, columns, '           + ')) io.stdout.write(`${row}\n`);
  }
  writeOwnLines(io.stdout, unfinished, '  + ');
  const summary = `${report.rawFiles} raw files, ${report.records} records, each as its audit entry committed to`;
  writeOwnLines(io.stdout, ok ? `vault OK: ${summary}` : `vault has ${report.problems.length} problem(s): ${summary} checked`, '  + ');
  return ok ? 0 : 1;
}

async function prune(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, PRUNE_SPEC);
  noPositionals(parsed);
  const age = parsed.values['--raw-older-than'];
  const secretsAge = parsed.values['--raw-with-secrets-older-than'];
  if (age === undefined && secretsAge === undefined) throw new UsageError('prune needs --raw-older-than DURATION (e.g. 7d) or --raw-with-secrets-older-than DURATION');
  const duration = (value: string): number => {
    try {
      return parseDuration(value);
    } catch (err) {
      throw new UsageError(terminalSafeLine((err as Error).message));
    }
  };
  const now = new Date();
  // Without --raw-older-than only records with suspected secrets are past retention.
  const olderThanMs = age === undefined ? now.getTime() : duration(age);
  const secretsOlderThanMs = secretsAge === undefined ? undefined : duration(secretsAge);
  const dryRun = parsed.flags.has('--dry-run');
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  await sealLeftovers(vault, io);
  if (!dryRun) await assertVaultWritable(vault);
  const audit = AuditLog.forVault(vault.root);
  const requests = new RequestStore(vault, audit);
  const result = await vault.pruneRaw(olderThanMs, now, {
    dryRun,
    audit,
    secretsOlderThanMs,
    // Approved extracts are raw bytes (or text made from them): they go before the bytes do.
    releaseDerived: async (digests) => void (await requests.pruneExtracts(digests)),
    // Logged before the deletion: if the audit log cannot take the entry, nothing is deleted.
    beforeDelete: async (item) => {
      await audit.append('raw.pruned', {
        sha256: item.sha256,
        size: item.size,
        reason: item.reason,
        records: item.records,
        ...(age === undefined ? {} : { older_than: age }),
        ...(secretsAge === undefined ? {} : { secrets_older_than: secretsAge }),
      });
    },
  });
  // Deleting nothing because a record is unreadable is a refusal, not a success.
  const refused = result.rawKept;
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson({ dry_run: dryRun, refused, ...result }, 2)}\n`);
    return refused ? 1 : 0;
  }
  for (const f of result.unreadableRecords) io.stderr.write(`warning: unreadable record ${terminalSafeLine(f)}\n`);
  if (refused) {
    const why = `airlock vault: ${result.unreadableRecords.length} unreadable record(s): no raw file was deleted and no record marked (an unreadable record may reference any of them); fix or remove them and prune again`;
    writeOwnLines(io.stderr, why, 'airlock vault:+ ');
  }
  const verb = dryRun ? 'would prune' : 'pruned';
  writeOwnLines(
    io.stdout,
    `${dryRun ? '(dry run, nothing changed) ' : ''}${verb} ${result.pruned.length} raw file(s), ${result.bytes} bytes, for records created before ${result.cutoff}; ` +
      `${dryRun ? 'would mark' : 'marked'} ${result.recordsMarked.length} record(s) raw_pruned_at; ${dryRun ? 'would remove' : 'removed'} ${result.tempFilesRemoved} stale temp file(s)` +
      `, ${result.index.digests.length} cached span index(es) of pruned artifacts and ${result.index.leftovers} interrupted index build(s), ${result.index.derived} bookmark and screen cache(s), ${result.index.bytes} bytes`,
    '  + ',
  );
  if (dryRun) for (const item of result.pruned) io.stdout.write(`  ${item.sha256}  ${item.size} B  ${item.reason}  ${item.records} record(s)\n`);
  return refused ? 1 : 0;
}
