import { formatBytes, seamLine, type TextTruncation } from '../../capture';
import { wrapLine } from '../../terminal/fit';
import { GutterStream } from '../../terminal/gutter';
import { LongString } from '../../json/project';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { formatRef, type CaptureRecord } from '../../vault';
import { commandLine, exitText, recordField } from '../../vault/display';

/** What `vault show` knows about a record's raw bytes beyond the record itself. */
export interface RawState {
  readonly rawStatus: string;
  /** Per stream: whether its raw file is in the vault. */
  readonly stored: Readonly<Record<string, boolean>>;
}

/** Width of the label column; values and their continuation rows start after it. */
const LABEL = 12;
/** How a value's further rows begin: under the value, after a `+` no label starts with. */
const CONTINUATION = `${' '.repeat(LABEL - 2)}+ `;

/** Record fields the readable form shows itself; any other field is listed under its own name. */
const SHOWN = new Set(['id', 'created_at', 'raw', 'raw_pruned_at', 'sanitized', 'command', 'exit_code', 'metadata', 'reports', 'chunks', 'kind', 'record_version', 'audit', 'redaction', 'raw_suspected_secrets']);
const SHOWN_METADATA = new Set(['command', 'argv', 'cwd', 'started_at', 'duration_ms', 'exit_code', 'signal', 'exit_status', 'truncated', 'termination', 'bytes', 'raw_artifacts', 'text_truncated', 'limits', 'env', 'envelope_version', 'sandbox']);

/**
 * The readable form of a record for a terminal, written as it is read: one `label: value` line
 * per fact (metadata spelled out, not a JSON dump), each cut to `columns` with continuation rows,
 * then each stream's sanitized text behind the gutter, with the --max-text seam marked where head
 * and tail meet. `columns` is the terminal's width, undefined when output is not a terminal: then
 * Airlock's own lines and the stored text's lines stay whole (only a terminal wraps, and `grep`
 * finds what the command printed). `record` is the record read as a stream (long fields as their head); a stream's text
 * comes from `text`, which hands it on in pieces, so a record of any size is shown in bounded memory.
 */
export async function writeRecord(record: CaptureRecord, raw: RawState, terminalWidth: number | undefined, text: StreamText, write: (s: string) => Promise<void>): Promise<void> {
  const columns = terminalWidth ?? Infinity;
  const lines: string[] = [];
  const field = (label: string, value: string): void => {
    lines.push(...wrapLine(`${`${label}:`.padEnd(LABEL)}${value}`, columns, CONTINUATION));
  };
  const meta = (key: string): unknown => recordField(record, key);
  field('id', record.id);
  field('created', terminalSafeLine(record.created_at));
  field('command', commandLine(record, 4096));
  if (typeof meta('cwd') === 'string') field('cwd', terminalSafeLine(meta('cwd') as string));
  if (typeof meta('started_at') === 'string') {
    const ran = typeof meta('duration_ms') === 'number' ? `, ran ${Math.round(meta('duration_ms') as number)} ms` : '';
    field('started', `${terminalSafeLine(meta('started_at') as string)}${ran}`);
  }
  const status = typeof meta('exit_status') === 'number' ? `; airlock capture exited ${meta('exit_status') as number}` : '';
  field('exit', `${exitText(record)}${status}`);
  const termination = meta('termination') as { reason?: unknown; signals?: unknown } | null | undefined;
  if (termination && typeof termination.reason === 'string') {
    const signals = Array.isArray(termination.signals) && termination.signals.length > 0 ? `; sent ${termination.signals.map(String).join(' then ')}` : '';
    field('stopped', terminalSafeLine(`by airlock (${termination.reason})${signals}`));
  }
  if (meta('truncated') === true) field('truncated', "yes: the captured bytes end before the command's output did");
  const bytes = meta('bytes');
  if (isPlainObject(bytes)) field('bytes', Object.entries(bytes).map(([s, n]) => `${terminalSafeLine(s)} ${typeof n === 'number' ? formatBytes(n) : '?'}`).join(', '));
  const limits = meta('limits') as { max_bytes?: unknown; max_text?: unknown; timeout_ms?: unknown } | undefined;
  if (isPlainObject(limits)) {
    const size = (v: unknown): string => (typeof v === 'number' ? formatBytes(v) : '?');
    field('limits', `--max-bytes ${size(limits.max_bytes)}, --max-text ${size(limits.max_text)}, --timeout ${typeof limits.timeout_ms === 'number' ? `${limits.timeout_ms} ms` : 'none'}`);
  }
  const env = meta('env') as { set?: unknown; unset?: unknown } | undefined;
  if (isPlainObject(env)) {
    const names = (v: unknown): string => (Array.isArray(v) && v.length > 0 ? v.map((n) => terminalSafeLine(String(n))).join(' ') : 'none');
    field('env', `set ${names(env.set)}; removed ${names(env.unset)}`);
  }
  const sandbox = meta('sandbox') as { used?: unknown; reason?: unknown } | undefined;
  if (isPlainObject(sandbox)) field('sandbox', terminalSafeLine(`${String(sandbox.used)}: ${String(sandbox.reason)}`));
  if (isPlainObject(record.reports)) {
    field('removed', Object.entries(record.reports).map(([s, r]) => `${terminalSafeLine(s)}: ${removedText(r)}`).join('; '));
  }
  const redaction = record.redaction as { policy?: { mode?: unknown }; stdout?: unknown; stderr?: unknown } | undefined;
  if (isPlainObject(redaction)) field('redacted', redactedText(redaction));
  const secrets = record.raw_suspected_secrets;
  if (isPlainObject(secrets)) field('secrets', `suspected in the raw bytes: ${Object.entries(secrets).map(([s, c]) => `${terminalSafeLine(s)} ${countsText(c)}`).join('; ')}`);
  const audit = record.audit as { seq?: unknown; hash?: unknown } | undefined;
  if (isPlainObject(audit)) field('audit', terminalSafeLine(`stored with audit entry ${String(audit.seq)}, hash ${String(audit.hash)}`));
  field('raw', record.raw_pruned_at !== undefined ? `pruned at ${terminalSafeLine(record.raw_pruned_at)}` : raw.rawStatus);
  for (const [stream, ref] of Object.entries(record.raw)) {
    lines.push(...wrapLine(`  ${stream.padEnd(8)} ${formatRef(ref.sha256)}  ${ref.size} bytes${raw.stored[stream] ? '' : ' (not stored)'}`, columns, CONTINUATION));
  }
  // Fields this layout does not know are listed as they are, one per line, so nothing is hidden.
  const extra: [string, unknown][] = Object.entries(record).filter(([k, v]) => !SHOWN.has(k) && !(k in record.raw && typeof v === 'string'));
  if (isPlainObject(record.metadata)) extra.push(...Object.entries(record.metadata).filter(([k]) => !SHOWN_METADATA.has(k)).map(([k, v]): [string, unknown] => [`metadata.${k}`, v]));
  for (const [key, value] of extra) field(terminalSafeLine(key.slice(0, 60)), terminalSafeJson(value));

  await write(`${lines.join('\n')}\n`);
  const cuts = meta('text_truncated');
  for (const stream of Object.keys(record.raw)) {
    const stored = storedText(record, stream);
    if (stored === undefined) continue;
    const cut = isPlainObject(cuts) ? asTruncation(cuts[stream]) : null;
    await write(`--- ${stream} (sanitized) ---\n`);
    await streamRows(stream, cut, columns, write, (piece, drain) => (typeof stored === 'string' ? piece(stored) : text(stored.path, piece, drain)));
    await write(`--- end ${stream} ---\n`);
  }
}

/**
 * Hands the text at `path` of the record on in pieces, in order (a streamed re-read of the
 * record), awaiting `drain` between reads so that output slower than the disk holds reading back.
 */
export type StreamText = (path: readonly string[], piece: (text: string) => void, drain: () => Promise<void>) => Promise<void>;

/** A stream's sanitized text as the record holds it: the string, or where to stream it from. */
function storedText(record: CaptureRecord, stream: string): string | { path: string[] } | undefined {
  const map = record.sanitized;
  if (isPlainObject(map)) {
    const t = map[stream];
    if (typeof t === 'string') return t;
    if (t instanceof LongString) return { path: ['sanitized', stream] };
  }
  const top = record[stream];
  if (typeof top === 'string') return top;
  return top instanceof LongString ? { path: [stream] } : undefined;
}

/** Text held for one write to the output (the rows of a stream's text are written in such pieces). */
const FLUSH_CHARS = 64 * 1024;

/** A stream's text behind the gutter as it arrives; a --max-text cut shows as Airlock's seam line between head and tail. */
async function streamRows(stream: string, cut: TextTruncation | null, columns: number, write: (s: string) => Promise<void>, feed: (piece: (text: string) => void, drain: () => Promise<void>) => void | Promise<void>): Promise<void> {
  let out: string[] = [];
  let outChars = 0;
  const take = (text: string): void => {
    out.push(text);
    outChars += text.length;
  };
  // Every row of stored text sits behind the gutter, so it cannot fake the section lines.
  let rows = new GutterStream(columns, take);
  let seen = 0;
  let inTail = false;
  const head = cut ? cut.head_bytes : null;
  const endPart = (where: string): void => {
    if (!rows.end().complete) out.push(`(no newline at ${where} of ${stream})\n`);
  };
  const flush = async (): Promise<void> => {
    if (out.length === 0) return;
    const text = out.join('');
    out = [];
    outChars = 0;
    await write(text);
  };
  const seam = (): void => {
    endPart('this point');
    out.push(`${wrapLine(seamLine(stream, cut!), columns, 'airlock:+ ').join('\n')}\n`);
    rows = new GutterStream(columns, take);
    inTail = true;
  };
  if (head === 0) seam();
  let pending: Promise<void> = Promise.resolve();
  await feed((piece) => {
    let text = piece;
    if (head !== null && !inTail) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (seen + bytes >= head) {
        const buf = Buffer.from(text, 'utf8');
        rows.push(buf.subarray(0, head - seen).toString('utf8'));
        seam();
        text = buf.subarray(head - seen).toString('utf8');
      }
      seen += bytes;
    }
    rows.push(text);
    // Off a terminal a whole piece comes back as one string: flush by size as well as by count.
    if (out.length > 256 || outChars > FLUSH_CHARS) pending = pending.then(flush);
  }, () => pending);
  await pending;
  endPart('the end');
  await flush();
}

/** "on: stdout 2 (github-token 2); stderr none" from a record's `redaction` (counts only). */
function redactedText(r: { policy?: { mode?: unknown }; stdout?: unknown; stderr?: unknown }): string {
  const mode = r.policy?.mode === 'off' ? 'off (found, left in the text)' : 'on';
  return `${mode}: stdout ${countsText(r.stdout)}; stderr ${countsText(r.stderr)}`;
}

/** "2 (github-token 2)" or "none" from `{count, rules}`; anything else as JSON. */
function countsText(c: unknown): string {
  if (c === null) return 'none';
  const v = c as { count?: unknown; rules?: unknown };
  if (typeof v?.count !== 'number' || !isPlainObject(v.rules)) return terminalSafeJson(c);
  if (v.count === 0) return 'none';
  return `${v.count} (${Object.entries(v.rules).map(([k, n]) => `${terminalSafeLine(k.slice(0, 40))} ${Number(n)}`).join(', ')})`;
}

/** "1 osc, 3 csi" from a removal report's classes, "nothing", or the report's JSON when it has another shape. */
function removedText(report: unknown): string {
  const classes = isPlainObject(report) ? report.classes : undefined;
  if (!isPlainObject(classes)) return terminalSafeJson(report);
  const found = Object.entries(classes).filter(([, c]) => isPlainObject(c) && typeof c.count === 'number' && c.count > 0);
  return found.length === 0 ? 'nothing' : found.map(([name, c]) => `${(c as { count: number }).count} ${terminalSafeLine(name)}`).join(', ');
}

function asTruncation(v: unknown): TextTruncation | null {
  if (!isPlainObject(v)) return null;
  const { head_bytes, tail_bytes, omitted_bytes } = v;
  if (typeof head_bytes !== 'number' || typeof tail_bytes !== 'number' || typeof omitted_bytes !== 'number') return null;
  return { head_bytes, tail_bytes, omitted_bytes, at_line_boundaries: v.at_line_boundaries !== false };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
