import { readdir, readFile } from 'node:fs/promises';
import { writeFileAtomic, isErrno, PRIVATE_FILE_MODE } from '../fs-atomic';
import { terminalSafeLine } from '../terminal-safe';
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

/** Writes a record atomically; with `overwrite` false an existing record is an error. */
export async function writeRecord(layout: VaultLayout, record: CaptureRecord, overwrite: boolean): Promise<void> {
  const path = layout.recordPath(record.id);
  try {
    await writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, { mode: PRIVATE_FILE_MODE, exclusive: !overwrite });
  } catch (err) {
    if (isErrno(err, 'EEXIST')) throw new VaultError('exists', `record ${record.id} already exists`);
    throw err;
  }
}

/** Reads and validates one record by id; 'not-found' if absent, 'bad-record' if malformed. */
export async function readRecord(layout: VaultLayout, id: string): Promise<CaptureRecord> {
  const path = layout.recordPath(id); // validates the id first: no traversal possible below
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) throw new VaultError('not-found', `no record ${id} in vault ${terminalSafeLine(layout.root)}`);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VaultError('bad-record', `record ${id} is not valid JSON`);
  }
  const record = validateRecord(parsed);
  if (record.id !== id) throw new VaultError('bad-record', `record file ${id}.json holds id ${record.id}`);
  return record;
}

/**
 * Reads every record. Files that are not `<id>.json` (atomic-write leftovers, strays) are skipped
 * silently; record files that fail to parse are returned in `errors`.
 */
export async function listRecords(layout: VaultLayout): Promise<RecordList> {
  const names = (await readdir(layout.recordsDir)).sort();
  const records: CaptureRecord[] = [];
  const errors: RecordReadError[] = [];
  for (const name of names) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : '';
    if (!isRecordId(id)) continue;
    try {
      records.push(await readRecord(layout, id));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) continue; // removed while we listed
      errors.push({ file: name, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { records, errors };
}

/** Record file names (not contents), for mode checks. */
export async function recordFiles(layout: VaultLayout): Promise<string[]> {
  const names = await readdir(layout.recordsDir);
  return names.filter((n) => n.endsWith('.json') && isRecordId(n.slice(0, -5))).sort();
}

