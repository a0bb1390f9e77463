import { AuditLog } from '../../node/audit';
import { parseDuration } from '../../node/duration';
import { terminalSafeJson, terminalSafeLine } from '../../node/terminal-safe';
import { formatRef, type CaptureRecord, type Vault } from '../../node/vault';
import { parseFlags } from '../flags';
import { assertVaultWritable, openVaultForCli, toCliError } from '../vault-open';
import { commandLine, exitCodeText, recordField, sanitizedText } from '../../node/vault/display';
import { CliError, terminalColumns, UsageError, type CliIo, type Command } from '../command';
import { gutterRows } from '../../node/gutter';

const USAGE = `Usage:
  airlock vault list   [--vault DIR] [--json]
  airlock vault show   ID [--vault DIR] [--json]
  airlock vault verify [--vault DIR]
  airlock vault prune  --raw-older-than DURATION [--vault DIR]

List, inspect, verify and prune the restricted vault of captures. Output is metadata and
sanitized text only; raw bytes are never printed.

Options:
  --vault DIR                 vault directory (default: $AIRLOCK_VAULT, else
                              $XDG_DATA_HOME/airlock/vault, else ~/.local/share/airlock/vault)
  --json                      machine-readable output (list, show)
  --raw-older-than DURATION   prune raw bytes of records older than DURATION (45s, 30m, 12h, 7d);
                              records and sanitized text are kept`;

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
  const { values, flags, positionals } = parseFlags(args, { '--vault': 'value', '--json': 'flag' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${terminalSafeLine(positionals[0]!.slice(0, 40))}'`);
  const vault = await openVaultForCli(values['--vault'], io);
  const { records, errors } = await vault.listRecords();
  for (const e of errors) io.stderr.write(`warning: unreadable record ${terminalSafeLine(e.file)}: ${terminalSafeLine(e.error)}\n`);
  if (flags.has('--json')) {
    const rows = [];
    for (const r of records) {
      rows.push({
        id: r.id,
        created_at: r.created_at,
        command: recordField(r, 'command') ?? null,
        exit_code: exitCodeText(r) === '-' ? null : Number(exitCodeText(r)),
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
  for (const r of records) {
    const sizes = Object.entries(r.raw)
      .map(([s, ref]) => `${s} ${ref.size} B`)
      .join(', ');
    const line = [r.id, terminalSafeLine(r.created_at), `exit ${exitCodeText(r)}`, sizes || 'no streams', `raw ${await rawStatus(vault, r)}`, commandLine(r)];
    io.stdout.write(`${line.join('  ')}\n`);
  }
  return 0;
}

/** Fields show prints in its header or text sections; everything else goes under "details". */
const SHOWN = new Set(['id', 'created_at', 'raw', 'raw_pruned_at', 'sanitized', 'command', 'exit_code']);

async function show(args: readonly string[], io: CliIo): Promise<number> {
  const { values, flags, positionals } = parseFlags(args, { '--vault': 'value', '--json': 'flag' });
  if (positionals.length !== 1) throw new UsageError('show needs exactly one record ID');
  const vault = await openVaultForCli(values['--vault'], io);
  const record = await vault.getRecord(positionals[0]!);
  if (flags.has('--json')) {
    // The record holds sanitized text, digests and reports; no raw bytes live in records.
    io.stdout.write(`${terminalSafeJson(record, 2)}\n`);
    return 0;
  }
  const out: string[] = [];
  out.push(`id:         ${record.id}`);
  out.push(`created:    ${terminalSafeLine(record.created_at)}`);
  out.push(`command:    ${commandLine(record, 400)}`);
  out.push(`exit code:  ${exitCodeText(record)}`);
  out.push(`raw:        ${record.raw_pruned_at !== undefined ? `pruned at ${terminalSafeLine(record.raw_pruned_at)}` : await rawStatus(vault, record)}`);
  for (const [stream, ref] of Object.entries(record.raw)) {
    const here = await vault.hasRaw(ref.sha256);
    out.push(`  ${stream.padEnd(8)} ${formatRef(ref.sha256)}  ${ref.size} bytes${here ? '' : ' (not stored)'}`);
  }
  // Top-level `<stream>` strings are sanitized text, printed below; keep them out of details.
  const streams = new Set(Object.keys(record.raw));
  const rest = Object.fromEntries(Object.entries(record).filter(([k, v]) => !SHOWN.has(k) && !(streams.has(k) && typeof v === 'string')));
  if (Object.keys(rest).length > 0) out.push(`details:\n${terminalSafeJson(rest, 2)}`);
  io.stdout.write(`${out.join('\n')}\n`);
  for (const stream of Object.keys(record.raw)) {
    const text = sanitizedText(record, stream);
    if (text === undefined) continue;
    // Every row of stored text sits behind the gutter, so it cannot fake the section lines.
    const { rows, complete } = gutterRows(text, terminalColumns(io));
    const tail = complete || text === '' ? '' : `(no newline at the end of ${stream})\n`;
    io.stdout.write(`--- ${stream} (sanitized) ---\n${rows.map((r) => `${r}\n`).join('')}${tail}--- end ${stream} ---\n`);
  }
  return 0;
}

async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { '--vault': 'value' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${terminalSafeLine(positionals[0]!.slice(0, 40))}'`);
  const vault = await openVaultForCli(values['--vault'], io);
  const report = await vault.verify();
  for (const p of report.problems) {
    const subject = p.sha256 ?? terminalSafeLine(p.path);
    io.stdout.write(`${p.problem.padEnd(10)} ${subject}  ${terminalSafeLine(p.detail)}${p.sha256 ? `  (${terminalSafeLine(p.path)})` : ''}\n`);
  }
  const counts: Record<string, number> = {};
  for (const p of report.problems) counts[p.problem] = (counts[p.problem] ?? 0) + 1;
  const ok = report.problems.length === 0;
  const summary = `${report.rawFiles} raw files, ${report.records} records`;
  io.stdout.write(ok ? `vault OK: ${summary}\n` : `vault has ${report.problems.length} problem(s): ${summary} checked\n`);
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
  return ok ? 0 : 1;
}

async function prune(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { '--vault': 'value', '--raw-older-than': 'value' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${terminalSafeLine(positionals[0]!.slice(0, 40))}'`);
  const age = values['--raw-older-than'];
  if (age === undefined) throw new UsageError('prune needs --raw-older-than DURATION (e.g. 7d)');
  let olderThanMs: number;
  try {
    olderThanMs = parseDuration(age);
  } catch (err) {
    throw new UsageError(terminalSafeLine((err as Error).message));
  }
  const vault = await openVaultForCli(values['--vault'], io);
  await assertVaultWritable(vault);
  const audit = AuditLog.forVault(vault.root);
  const result = await vault.pruneRaw(olderThanMs, new Date(), {
    // Logged before the deletion: if the audit log cannot take the entry, nothing is deleted.
    beforeDelete: async (item) => {
      await audit.append('raw.pruned', {
        sha256: item.sha256,
        size: item.size,
        reason: item.reason,
        records: item.records.length,
        record_ids: item.records.slice(0, 64),
        older_than: age,
      });
    },
  });
  for (const f of result.unreadableRecords) io.stderr.write(`warning: unreadable record ${terminalSafeLine(f)}\n`);
  if (result.rawKept) {
    io.stderr.write(`warning: ${result.unreadableRecords.length} unreadable record(s): no raw file was deleted and no record marked (an unreadable record may reference any of them); fix or remove them and prune again\n`);
  }
  io.stdout.write(
    `pruned ${result.pruned.length} raw file(s), ${result.bytes} bytes, for records created before ${result.cutoff}; ` +
      `marked ${result.recordsMarked.length} record(s) raw_pruned_at; removed ${result.tempFilesRemoved} stale temp file(s)\n`,
  );
  return 0;
}
