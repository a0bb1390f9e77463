import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';
import { isSha256Hex } from './ref';
import { isRecordId } from './record-id';

/** Digest and length of one captured stream's raw bytes. */
export interface RawStreamRef {
  readonly sha256: string;
  readonly size: number;
}

/**
 * One capture as stored in `records/<id>.json`. The vault checks only the fields it relies on;
 * everything else (sanitized text, reports, metadata) is the capture's business. Suggested keys:
 * `sanitized: {stdout, stderr}` (text), `reports: {stdout, stderr}`, `metadata: {command, cwd,
 * exit_code, duration_ms, truncated, ...}`; `vault list/show` also look for `command` and
 * `exit_code` at the top level.
 */
export interface CaptureRecord {
  readonly id: string;
  /** ISO 8601 instant; prune measures record age from it. */
  readonly created_at: string;
  /** Raw digest per stream name (`stdout`, `stderr`, ...). */
  readonly raw: Record<string, RawStreamRef>;
  /** Set by prune when the raw retention of this record ended; its raw bytes may be gone. */
  readonly raw_pruned_at?: string;
  readonly [key: string]: unknown;
}

/** Stream names double as display labels; keep them short and plain. */
const STREAM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Checks that `value` has the shape the vault relies on and returns it typed; throws
 * VaultError('bad-record') naming the first problem.
 */
export function validateRecord(value: unknown): CaptureRecord {
  const fail = (why: string): never => {
    throw new VaultError('bad-record', `invalid capture record: ${why}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not a JSON object');
  const r = value as Record<string, unknown>;
  if (!isRecordId(r.id)) return fail(`bad id '${terminalSafeLine(String(r.id).slice(0, 80))}'`);
  if (!isIsoInstant(r.created_at)) return fail('created_at is not an ISO 8601 instant');
  if (r.raw_pruned_at !== undefined && !isIsoInstant(r.raw_pruned_at)) return fail('raw_pruned_at is not an ISO 8601 instant');
  if (typeof r.raw !== 'object' || r.raw === null || Array.isArray(r.raw)) return fail('raw is not an object');
  for (const [stream, ref] of Object.entries(r.raw)) {
    if (!STREAM_NAME.test(stream)) return fail(`bad stream name '${terminalSafeLine(stream.slice(0, 40))}'`);
    const { sha256, size } = (ref ?? {}) as Record<string, unknown>;
    if (!isSha256Hex(sha256)) return fail(`raw.${stream}.sha256 is not 64 lowercase hex digits`);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return fail(`raw.${stream}.size is not a non-negative integer`);
  }
  return value as CaptureRecord;
}

/** True for strings that Date parses and that look like ISO 8601 (not "Tuesday"). */
function isIsoInstant(v: unknown): v is string {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v));
}
