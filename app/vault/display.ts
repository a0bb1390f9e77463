import { LongArray, LongString } from '../json/project';
import { shellQuote } from '../terminal/shell-quote';
import { terminalSafeLine } from '../terminal/terminal-safe';
import type { CaptureRecord } from './record';

/**
 * Reads a display field a capture record may keep at the top level or under `metadata`
 * (the record shape is the capture's choice; list/show accept both).
 */
export function recordField(record: CaptureRecord, key: string): unknown {
  if (record[key] !== undefined) return record[key];
  const meta = record.metadata;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[key] : undefined;
}

/** The captured command as one terminal-safe line (argv joined with shell-style quoting). */
export function commandLine(record: CaptureRecord, max = 80): string {
  const cmd = recordField(record, 'command');
  let text: string;
  if (Array.isArray(cmd)) text = cmd.map((a) => shellQuote(String(a))).join(' ');
  else if (typeof cmd === 'string') text = cmd;
  else if (cmd instanceof LongString) text = `${cmd.head}…`;
  else return '-';
  const safe = terminalSafeLine(text);
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

/** The exit code as text, `-` when the record has none (killed, still unknown). */
export function exitCodeText(record: CaptureRecord): string {
  const code = recordField(record, 'exit_code');
  return typeof code === 'number' && Number.isFinite(code) ? String(code) : '-';
}

/**
 * How the command ended, for list and show: `exit 3`, `killed by SIGTERM` (a signal, not a
 * missing exit code), or `exit -` when the record says neither.
 */
export function exitText(record: CaptureRecord): string {
  const code = exitCodeText(record);
  if (code !== '-') return `exit ${code}`;
  const signal = recordField(record, 'signal');
  return typeof signal === 'string' && /^SIG[A-Z0-9]{1,12}$/.test(signal) ? `killed by ${signal}` : 'exit -';
}

/** The record's capture time in ms (for ordering): metadata.started_at, else created_at. */
export function captureTime(record: CaptureRecord): number {
  const started = recordField(record, 'started_at');
  const t = typeof started === 'string' ? Date.parse(started) : NaN;
  return Number.isNaN(t) ? Date.parse(record.created_at) : t;
}

/** The sanitized text of one stream: `sanitized.<stream>`, else a top-level `<stream>` string. */
export function sanitizedText(record: CaptureRecord, stream: string): string | undefined {
  const map = record.sanitized;
  if (typeof map === 'object' && map !== null) {
    const t = (map as Record<string, unknown>)[stream];
    if (typeof t === 'string') return t;
  }
  const top = record[stream];
  return typeof top === 'string' ? top : undefined;
}

/**
 * A string field of a record read as a stream: the string, or for one too long to keep (a
 * LongString) its head and an ellipsis; anything else is undefined.
 */
export function shortText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return v instanceof LongString ? `${v.head}…` : undefined;
}

/** A field of a record read as a stream, for JSON output: long strings and arrays as their head. */
export function headOf(v: unknown): unknown {
  if (v instanceof LongString) return `${v.head}…`;
  if (v instanceof LongArray) return v.items.map(headOf);
  return v;
}
