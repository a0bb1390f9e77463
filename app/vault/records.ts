import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { writeFileAtomic, isErrno, PRIVATE_FILE_MODE } from '../files/fs-atomic';
import { JsonReader, JsonSyntaxError } from '../json/events';
import { JsonProjection, type ProjectionLimits } from '../json/project';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';
import type { VaultLayout } from './layout';
import { validateRecord, type CaptureRecord } from './record';
import { isRecordId } from './record-id';

/** A record file that could not be read or parsed; list and verify report these, never throw. */
export interface RecordReadError {
  readonly file: string;
  readonly error: string;
}

/** Result of listing records: the good ones sorted by id, and the bad files. */
export interface RecordList {
  readonly records: CaptureRecord[];
  readonly errors: RecordReadError[];
}

/**
 * Largest record file read whole (vault show --json, read_text, the desktop's chunk log). Capture
 * bounds its records far below it (--max-text, the chunk log's rows); a larger file is an older
 * record or a planted one, and list, verify, prune and show read it as a stream instead.
 */
export const MAX_RECORD_BYTES = 32 << 20;

/** What a streamed read keeps of a record: short fields whole, long strings and arrays as their head. */
export const SUMMARY_LIMITS: ProjectionLimits = { maxString: 16 * 1024, maxItems: 64 };

/** A record read as a stream: its kept fields, and the digest and size of the file's bytes. */
export interface ScannedRecord {
  readonly id: string;
  /** The record with long strings as LongString and long arrays as LongArray (see JsonProjection). */
  readonly record: CaptureRecord;
  /** sha256 of the record file's bytes, as its audit entry commits to. */
  readonly sha256: string;
  readonly bytes: number;
}

/** The bytes a record is stored as (and its audit entry hashes): compact JSON and a newline. */
export function serializeRecord(record: CaptureRecord): Buffer {
  return Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
}

/** sha256 of bytes, hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes a record's bytes atomically; with `overwrite` false an existing record is an error. */
export async function writeRecordBytes(layout: VaultLayout, id: string, bytes: Uint8Array, overwrite: boolean): Promise<void> {
  try {
    await writeFileAtomic(layout.recordPath(id), bytes, { mode: PRIVATE_FILE_MODE, exclusive: !overwrite });
  } catch (err) {
    if (isErrno(err, 'EEXIST')) throw new VaultError('exists', `record ${id} already exists`);
    throw err;
  }
}

/** Path of the marker prune leaves beside a record whose raw retention ended. */
export function prunedMarkerPath(layout: VaultLayout, id: string): string {
  return `${layout.recordPath(id).slice(0, -'.json'.length)}.pruned`;
}

/** The marker's bytes, as its `record.pruned` audit entry hashes them. */
export function prunedMarker(id: string, at: string): Buffer {
  return Buffer.from(`${JSON.stringify({ record: id, raw_pruned_at: at })}\n`, 'utf8');
}

/** When the record's raw retention ended according to its marker, or undefined (no marker, or a malformed one). */
async function markerTime(layout: VaultLayout, id: string): Promise<string | undefined> {
  try {
    const fh = await open(prunedMarkerPath(layout, id), fsc.O_RDONLY | fsc.O_NOFOLLOW);
    try {
      const { bytesRead, buffer } = await fh.read(Buffer.alloc(512), 0, 512, 0);
      const text = buffer.subarray(0, bytesRead).toString('utf8');
      const v = JSON.parse(text) as { record?: unknown; raw_pruned_at?: unknown };
      return v.record === id && typeof v.raw_pruned_at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v.raw_pruned_at) ? v.raw_pruned_at : undefined;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Reads and validates one whole record by id; 'not-found' if absent, 'bad-record' if malformed,
 * 'too-large' past MAX_RECORD_BYTES (read it with scanRecord). A prune marker beside it sets
 * `raw_pruned_at`.
 */
export async function readRecord(layout: VaultLayout, id: string): Promise<CaptureRecord> {
  const path = layout.recordPath(id); // validates the id first: no traversal possible below
  let text: string;
  try {
    const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    try {
      const { size } = await fh.stat();
      if (size > MAX_RECORD_BYTES) throw new VaultError('too-large', `record ${id} is ${size} bytes, more than the ${MAX_RECORD_BYTES} read whole; 'airlock vault show ${id}' streams it`);
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (isErrno(err, 'ENOENT')) throw new VaultError('not-found', `no record ${id} in vault ${terminalSafeLine(layout.root)}`);
    if (isErrno(err, 'ELOOP')) throw new VaultError('bad-record', `record ${id} is a symbolic link; refusing to read it`);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VaultError('bad-record', `record ${id} is not valid JSON`);
  }
  return withMarker(layout, checked(parsed, id));
}

/**
 * Reads one record as a stream, in memory bounded by `limits` whatever the file's size: its
 * fields (long ones as their head), and the sha256 and size of its bytes. `limits.stream` and
 * `onText` hand the text of chosen strings (a stream's sanitized text) on as it is read;
 * `afterChunk`, awaited after each chunk, lets whoever takes that text hold the reading back.
 */
export async function scanRecord(layout: VaultLayout, id: string, limits: ProjectionLimits = SUMMARY_LIMITS, afterChunk?: () => Promise<void>): Promise<ScannedRecord> {
  const projection = new JsonProjection(limits);
  const reader = new JsonReader(projection);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    await readRecordChunks(layout, id, (chunk) => {
      hash.update(chunk);
      bytes += chunk.length;
      reader.write(chunk);
      return afterChunk?.();
    });
    reader.end();
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new VaultError('bad-record', `record ${id} is not valid JSON (${err.message})`);
    throw err;
  }
  return { id, record: await withMarker(layout, checked(projection.value, id)), sha256: hash.digest('hex'), bytes };
}

/** Hands a record file's bytes to `onChunk` in order, a chunk at a time (awaited). */
export async function readRecordChunks(layout: VaultLayout, id: string, onChunk: (chunk: Buffer) => void | Promise<void>): Promise<void> {
  const path = layout.recordPath(id);
  let fh;
  try {
    fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) throw new VaultError('not-found', `no record ${id} in vault ${terminalSafeLine(layout.root)}`);
    if (isErrno(err, 'ELOOP')) throw new VaultError('bad-record', `record ${id} is a symbolic link; refusing to read it`);
    throw err;
  }
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      await onChunk(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

function checked(parsed: unknown, id: string): CaptureRecord {
  const record = validateRecord(parsed);
  if (record.id !== id) throw new VaultError('bad-record', `record file ${id}.json holds id ${terminalSafeLine(String(record.id))}`);
  return record;
}

async function withMarker(layout: VaultLayout, record: CaptureRecord): Promise<CaptureRecord> {
  if (record.raw_pruned_at !== undefined) return record;
  const at = await markerTime(layout, record.id);
  return at === undefined ? record : { ...record, raw_pruned_at: at };
}

/** One record of {@link eachRecord}: read, or why not. */
export type ScanResult = ({ readonly ok: true } & ScannedRecord) | { readonly ok: false; readonly id: string; readonly file: string; readonly error: string };

/**
 * Every record as a stream, in id order, one at a time: what a command that looks at all records
 * (list, verify, prune) holds is one record's kept fields, never the vault. Files that are not
 * `<id>.json` are skipped; records that fail to read are yielded as errors.
 */
export async function* eachRecord(layout: VaultLayout, limits: ProjectionLimits = SUMMARY_LIMITS): AsyncGenerator<ScanResult> {
  for (const file of await recordFiles(layout)) {
    const id = file.slice(0, -'.json'.length);
    try {
      yield { ok: true, ...(await scanRecord(layout, id, limits)) };
    } catch (err) {
      if (err instanceof VaultError && err.code === 'not-found') continue; // removed while we listed
      yield { ok: false, id, file, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

/**
 * Every record's kept fields (see SUMMARY_LIMITS), sorted by id; unreadable files in `errors`.
 * Holds all of them at once: for callers that need them together (the desktop's vault view).
 */
export async function listRecords(layout: VaultLayout): Promise<RecordList> {
  const records: CaptureRecord[] = [];
  const errors: RecordReadError[] = [];
  for await (const r of eachRecord(layout)) {
    if (r.ok) records.push(r.record);
    else errors.push({ file: r.file, error: r.error });
  }
  return { records, errors };
}

/** Record file names (not contents), sorted. */
export async function recordFiles(layout: VaultLayout): Promise<string[]> {
  const names = await readdir(layout.recordsDir);
  return names.filter((n) => n.endsWith('.json') && isRecordId(n.slice(0, -5))).sort();
}
