import { z } from 'zod';
import { LongString } from '../../json/project';
import type { CaptureRecord } from '../../vault';
import { shortText } from '../../vault/display';
import { formatBytes } from '../../capture/render';
import { field } from '../render';
import { recordId } from '../schemas';
import { defineTool } from '../tool';

/** Records one call lists unless it asks otherwise. */
export const DEFAULT_LIST_LIMIT = 20;
/** Most records one call may list. */
export const MAX_LIST_LIMIT = 200;

const perStream = z.object({ stdout: z.number(), stderr: z.number() });

const recordSummary = z.object({
  record: recordId,
  created_at: z.string(),
  command: z.string().describe('shell-quoted argv, control characters escaped'),
  cwd: z.string(),
  exit_code: z.number().nullable(),
  signal: z.string().nullable(),
  duration_ms: z.number().nullable(),
  truncated: z.boolean(),
  bytes: perStream.describe('raw bytes captured'),
  lines: perStream.describe('lines of stored sanitized text (read_text pages them)'),
  sandbox: z.string().describe('bwrap, none, or unknown (records from before sandboxing)'),
  raw_pruned: z.boolean(),
});

type RecordSummary = z.output<typeof recordSummary>;

/** `list_records`: the most recent captures with their sanitized metadata, newest first. */
export const listRecordsTool = defineTool({
  name: 'list_records',
  title: 'List recent captures',
  description: 'Lists recent captures in the vault, newest first, with metadata (command, exit status, sizes, line counts); use the record id with read_text.',
  input: {
    limit: z.number().int().positive().max(MAX_LIST_LIMIT).optional().describe(`records to return (default ${DEFAULT_LIST_LIMIT})`),
    command_contains: z.string().min(1).max(200).optional().describe('only records whose command contains this literal text'),
  },
  output: {
    records: z.array(recordSummary),
    matched: z.number().describe('records that matched, before limit'),
    unreadable: z.number().describe('record files that could not be read'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    // Records are read one at a time as a stream, and only the `limit` newest summaries are
    // held: memory does not grow with the vault's records or their size.
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const newest: RecordSummary[] = [];
    let matched = 0;
    let unreadable = 0;
    for await (const r of ctx.vault.eachRecord()) {
      if (!r.ok) {
        unreadable++;
        continue;
      }
      if (r.record.kind !== 'capture') continue;
      const s = summarize(r.record);
      if (args.command_contains !== undefined && !s.command.includes(args.command_contains)) continue;
      matched++;
      newest.push(s);
      // Ids sort by the second only; created_at has milliseconds.
      newest.sort((a, b) => (a.created_at === b.created_at ? b.record.localeCompare(a.record) : b.created_at.localeCompare(a.created_at)));
      if (newest.length > limit) newest.pop();
    }
    const structured = { records: newest, matched, unreadable };
    return { structured, text: renderList(structured) };
  },
});

/** Metadata only: caller-given strings are escaped to one safe line; text is counted, not returned. */
function summarize(r: CaptureRecord): RecordSummary {
  const m = (r.metadata ?? {}) as Record<string, unknown>;
  const sanitized = (r.sanitized ?? {}) as Record<string, unknown>;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  // A text read as a stream is a LongString that counted its line breaks; an unterminated last line counts too.
  const lines = (v: unknown): number => {
    if (v instanceof LongString) return v.lines + (v.length > 0 && !v.endsWithNewline ? 1 : 0);
    return typeof v === 'string' && v.length > 0 ? v.split('\n').length - (v.endsWith('\n') ? 1 : 0) : 0;
  };
  const sandbox = (m.sandbox as { used?: unknown } | undefined)?.used;
  return {
    record: r.id,
    created_at: r.created_at,
    command: field(shortText(r.command) ?? '', 1000),
    cwd: field(shortText(m.cwd) ?? '', 1000),
    exit_code: num(r.exit_code),
    signal: typeof m.signal === 'string' ? field(m.signal, 20) : null,
    duration_ms: num(m.duration_ms),
    truncated: m.truncated === true,
    bytes: { stdout: r.raw.stdout?.size ?? 0, stderr: r.raw.stderr?.size ?? 0 },
    lines: { stdout: lines(sanitized.stdout), stderr: lines(sanitized.stderr) },
    sandbox: sandbox === 'bwrap' || sandbox === 'none' ? sandbox : 'unknown',
    raw_pruned: r.raw_pruned_at !== undefined,
  };
}

function renderList(s: { records: RecordSummary[]; matched: number; unreadable: number }): string {
  const out = [`airlock list_records: ${s.records.length} of ${s.matched} matching captures, newest first${s.unreadable ? `; ${s.unreadable} record files unreadable` : ''}`];
  out.push('Each line: record, time, status, sizes, sandbox, then "command:" with the command as given (escaped; caller text, not Airlock\'s).');
  for (const r of s.records) {
    const status = r.signal ? `killed by ${r.signal}` : `exit ${r.exit_code}`;
    out.push(
      `${r.record} ${r.created_at} ${status}${r.truncated ? ' truncated' : ''}; stdout ${formatBytes(r.bytes.stdout)}/${r.lines.stdout} lines, stderr ${formatBytes(r.bytes.stderr)}/${r.lines.stderr} lines; sandbox ${r.sandbox}; command: ${r.command}`,
    );
  }
  return out.join('\n');
}
