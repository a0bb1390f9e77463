import { AuditLog } from '../../node/audit';
import { parseDuration } from '../../node/duration';
import { wrapLine } from '../../node/fit';
import { terminalSafeJson, terminalSafeLine } from '../../node/terminal-safe';
import { formatRef, type CaptureRecord, type Vault } from '../../node/vault';
import { noPositionals, parseFlags, type FlagSpec } from '../flags';
import { assertVaultWritable, openVaultForCli, toCliError } from '../vault-open';
import { captureTime, commandLine, exitCodeText, exitText, recordField } from '../../node/vault/display';
import { CliError, terminalColumns, UsageError, writeOwnLines, type CliIo, type Command } from '../command';
import { findRecordId } from '../vault/find-record';
import { renderRecord } from '../vault/show';

const USAGE = `Usage:
  airlock vault list   [--vault DIR] [--json]
  airlock vault show   ID|PREFIX|latest [--vault DIR] [--json]
  airlock vault verify [--vault DIR] [--json]
  airlock vault prune  [--raw-older-than DURATION] [--raw-with-secrets-older-than DURATION] [--dry-run] [--vault DIR] [--json]

List, inspect, verify and prune the restricted vault of captures. Output is metadata and
sanitized text only; raw bytes are never printed.

Options:
  --vault DIR                 vault directory (default: $AIRLOCK_VAULT, which must be absolute,
                              else $XDG_DATA_HOME/airlock/vault, else ~/.local/share/airlock/vault)
  --json                      machine-readable output
  --raw-with-secrets-older-than DURATION
                              (prune) a shorter retention for raw bytes whose record notes
                              suspected secrets (raw_suspected_secrets; docs/secrets.md)
  --raw-older-than DURATION   prune raw bytes of records older than DURATION (45s, 30m, 12h, 7d);
                              records and sanitized text are kept
  --dry-run                   (prune) say what would be pruned, change nothing

list orders records by capture time. show takes a record id, a unique prefix of one, or
'latest'. verify exits 1 when it finds a problem; prune exits 1 when it refused to delete
because a record is unreadable.`;

const LIST_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const SHOW_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const VERIFY_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const PRUNE_SPEC: FlagSpec = { '--vault': 'value', '--raw-older-than': 'value', '--raw-with-secrets-older-than': 'value', '--dry-run': 'flag', '--json': 'flag' };

/** `airlock vault`: list/show/verify/prune the capture vault. */
export const vaultCommand: Command = {
  name: 'vault',
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    try {
      switch (sub) {
        case 'list':
          return await list(rest, io);
        case 'show':
          return await show(rest, io);
        case 'verify':
          return await verify(rest, io);
        case 'prune':
          return await prune(rest, io);
        case undefined:
          throw new UsageError('missing subcommand (list, show, verify or prune)');
        default:
          throw new UsageError(`unknown subcommand '${terminalSafeLine(sub.slice(0, 40))}'`);
      }
    } catch (err) {
      throw toCliError(err);
    }
  },
};

type RawStatus = 'present' | 'pruned' | 'missing';

async function rawStatus(vault: Vault, record: CaptureRecord): Promise<RawStatus> {
  if (record.raw_pruned_at !== undefined) return 'pruned';
  for (const ref of Object.values(record.raw)) if (!(await vault.hasRaw(ref.sha256))) return 'missing';
  return 'present';
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, LIST_SPEC);
  noPositionals(parsed);
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  const { records, errors } = await vault.listRecords();
  // Ids sort by second only; within a second the random suffix would decide.
  records.sort((a, b) => captureTime(a) - captureTime(b) || (a.id < b.id ? -1 : 1));
  writeOwnLines(io.stderr, errors.map((e) => `warning: unreadable record ${terminalSafeLine(e.file)}: ${terminalSafeLine(e.error)}`), 'warning:+ ');
  if (parsed.flags.has('--json')) {
    const rows = [];
    for (const r of records) {
      rows.push({
        id: r.id,
        created_at: r.created_at,
        command: recordField(r, 'command') ?? null,
        exit_code: exitCodeText(r) === '-' ? null : Number(exitCodeText(r)),
        signal: typeof recordField(r, 'signal') === 'string' ? recordField(r, 'signal') : null,
        raw: Object.fromEntries(Object.entries(r.raw).map(([s, ref]) => [s, { ...ref, ref: formatRef(ref.sha256) }])),
        raw_status: await rawStatus(vault, r),
        raw_pruned_at: r.raw_pruned_at ?? null,
      });
    }
    io.stdout.write(`${terminalSafeJson(rows, 2)}\n`);
    return 0;
  }
  if (records.length === 0) {
    io.stdout.write(`no records in vault ${terminalSafeLine(vault.root)}\n`);
    return 0;
  }
  // On a terminal a row wider than it continues on rows that begin with `+`, so the terminal
  // never wraps a command onto a row of its own; `vault show` has the whole command.
  const columns = terminalColumns(io) ?? Infinity;
  for (const r of records) {
    const sizes = Object.entries(r.raw)
      .map(([s, ref]) => `${s} ${ref.size} B`)
      .join(', ');
    const line = [r.id, terminalSafeLine(r.created_at), exitText(r), sizes || 'no streams', `raw ${await rawStatus(vault, r)}`, commandLine(r)].join('  ');
    for (const row of wrapLine(line, columns, '    + ')) io.stdout.write(`${row}\n`);
  }
  return 0;
}

async function show(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, SHOW_SPEC);
  if (parsed.positionals.length !== 1) throw new UsageError('show needs exactly one record ID, a unique prefix of one, or latest');
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  const record = await vault.getRecord(await findRecordId(vault, parsed.positionals[0]!));
  if (parsed.flags.has('--json')) {
    // The record holds sanitized text, digests and reports; no raw bytes live in records.
    io.stdout.write(`${terminalSafeJson(record, 2)}\n`);
    return 0;
  }
  const stored: Record<string, boolean> = {};
  for (const [stream, ref] of Object.entries(record.raw)) stored[stream] = await vault.hasRaw(ref.sha256);
  io.stdout.write(renderRecord(record, { rawStatus: await rawStatus(vault, record), stored }, terminalColumns(io)));
  return 0;
}

async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, VERIFY_SPEC);
  noPositionals(parsed);
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  const report = await vault.verify();
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
    io.stdout.write(`${terminalSafeJson({ ok, raw_files: report.rawFiles, records: report.records, by_kind: counts, problems: report.problems }, 2)}\n`);
    return ok ? 0 : 1;
  }
  const columns = terminalColumns(io) ?? Infinity;
  for (const p of report.problems) {
    const subject = p.sha256 ?? terminalSafeLine(p.path);
    const line = `${p.problem.padEnd(10)} ${subject}  ${terminalSafeLine(p.detail)}${p.sha256 ? `  (${terminalSafeLine(p.path)})` : ''}`;
    for (const row of wrapLine(line, columns, '           + ')) io.stdout.write(`${row}\n`);
  }
  const summary = `${report.rawFiles} raw files, ${report.records} records`;
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
  if (!dryRun) await assertVaultWritable(vault);
  const audit = AuditLog.forVault(vault.root);
  const result = await vault.pruneRaw(olderThanMs, now, {
    dryRun,
    secretsOlderThanMs,
    // Logged before the deletion: if the audit log cannot take the entry, nothing is deleted.
    beforeDelete: async (item) => {
      await audit.append('raw.pruned', {
        sha256: item.sha256,
        size: item.size,
        reason: item.reason,
        records: item.records.length,
        record_ids: item.records.slice(0, 64),
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
      `, ${result.index.digests.length} cached span index(es) of pruned artifacts and ${result.index.leftovers} interrupted index build(s), ${result.index.bytes} bytes`,
    '  + ',
  );
  if (dryRun) for (const item of result.pruned) io.stdout.write(`  ${item.sha256}  ${item.size} B  ${item.reason}  ${item.records.length} record(s)\n`);
  return refused ? 1 : 0;
}
