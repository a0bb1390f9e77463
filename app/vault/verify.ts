import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../files/fs-atomic';
import { hashFile } from './hash-file';
import type { VaultLayout } from './layout';
import { checkMarkersAndRequests, indexAudit, recordBindingProblem, type BindingProblem } from './bindings';
import { eachRecord, recordFiles } from './records';
import { walkRaw } from './walk-raw';
import { openRunning, runningEntries } from './running';

/** Kinds of problem verify reports. */
export type VaultProblemKind =
  /** raw bytes do not hash to their name, or a record's size disagrees with the file */
  | 'mismatch'
  /** a record references raw bytes that are gone although the record was not pruned */
  | 'missing'
  /** a raw file cannot be read, or is not a regular file (e.g. a symlink) */
  | 'unreadable'
  /** a file is not 0600 or a directory is not 0700 */
  | 'bad-mode'
  /** a record file does not parse or validate */
  | 'bad-record'
  /** something under raw/sha256 that is not a correctly placed raw file */
  | 'stray'
  /** a record, prune marker or request whose bytes differ from what its audit entry committed to */
  | 'edited'
  /** a record, prune marker or request no audit entry commits to */
  | 'unbound'
  /** the audit log itself is broken, so nothing can be checked against it past the break */
  | 'audit';

/** One problem found by verify. `sha256` is set for problems about raw bytes. */
export interface VaultProblem {
  readonly problem: VaultProblemKind;
  readonly path: string;
  readonly detail: string;
  readonly sha256?: string;
  readonly recordId?: string;
}

/** What verify looked at, and what it found. */
export interface VaultVerifyReport {
  readonly problems: VaultProblem[];
  readonly rawFiles: number;
  readonly records: number;
  /**
   * Captures whose `capture.started` entry has no outcome after it (a crash, a kill, a store that
   * failed with the log full): traces, not damage.
   */
  readonly unfinished: { readonly record: string; readonly seq: number }[];
  /**
   * Records marked interrupted: their Airlock process ended before the command did, and a later
   * one sealed what they had stored (app/capture/interrupted.ts). Explained, not damage.
   */
  readonly interrupted: { readonly record: string; readonly owner_pid: number | null; readonly raw_bytes_seen: Record<string, number>; readonly raw_bytes_stored: Record<string, number> }[];
}

/**
 * Re-hashes every raw file (streaming), checks every record's references and the modes of the
 * vault's files and directories, and holds every record, prune marker and request against the
 * audit entries that made them (checkBindings): an edit anywhere in them is a problem. Records
 * are read one at a time as a stream. Temp files in `tmp/` are in-progress or crash leftovers
 * and are ignored. Never throws for a problem it can name; only for I/O failures on the vault.
 */
export async function verifyVault(layout: VaultLayout): Promise<VaultVerifyReport> {
  const problems: VaultProblem[] = [];
  // The root may be reached through a link (open() follows it too); inside, links are problems.
  await checkMode(layout.root, PRIVATE_DIR_MODE, problems, false, true);
  await checkMode(layout.recordsDir, PRIVATE_DIR_MODE, problems);
  // raw/ and tmp/ appear on first use; their absence is not a problem.
  for (const dir of [layout.rawBase, layout.rawRoot, layout.tmpDir]) await checkMode(dir, PRIVATE_DIR_MODE, problems, true);
  await checkMode(layout.auditPath, PRIVATE_FILE_MODE, problems, true);

  const sizes = new Map<string, number>();
  const entries = await walkRaw(layout);
  const present = new Set(entries.flatMap((e) => (e.kind === 'raw' ? [e.sha256] : [])));
  let rawFiles = 0;
  for (const entry of entries) {
    if (entry.kind === 'prefix') {
      await checkMode(entry.path, PRIVATE_DIR_MODE, problems);
      continue;
    }
    if (entry.kind === 'stray') {
      problems.push({ problem: 'stray', path: entry.path, detail: 'not a raw file in its sha256 prefix directory' });
      continue;
    }
    rawFiles++;
    const { sha256, path } = entry;
    const st = await lstat(path).catch(() => null);
    if (!st || !st.isFile()) {
      problems.push({ problem: 'unreadable', sha256, path, detail: st ? 'not a regular file' : 'cannot stat' });
      continue;
    }
    if ((st.mode & 0o777) !== PRIVATE_FILE_MODE) {
      problems.push({ problem: 'bad-mode', sha256, path, detail: `mode ${octal(st.mode)}, expected 0600` });
    }
    try {
      const actual = await hashFile(path);
      sizes.set(sha256, actual.size);
      if (actual.sha256 !== sha256) {
        problems.push({ problem: 'mismatch', sha256, path, detail: `content hashes to ${actual.sha256}` });
      }
    } catch (err) {
      problems.push({ problem: 'unreadable', sha256, path, detail: isErrno(err) ? String((err as { code: unknown }).code) : String(err) });
    }
  }

  for (const file of await recordFiles(layout)) {
    await checkMode(join(layout.recordsDir, file), PRIVATE_FILE_MODE, problems, true);
  }
  const index = await indexAudit(layout.auditPath).catch((err: unknown) => {
    problems.push({ problem: 'audit', path: layout.auditPath, detail: `the audit log cannot be read (${isErrno(err) ? String((err as { code: unknown }).code) : String(err)}): records and requests cannot be checked against it` });
    return null;
  });
  if (index && !index.chain.ok) problems.push({ problem: 'audit', path: layout.auditPath, detail: `the audit log is broken at line ${index.chain.line} (${index.chain.reason}): records and requests cannot be checked against it ('airlock audit verify')` });
  const bound = (b: BindingProblem | null): void => {
    if (b) problems.push({ problem: b.problem, path: b.path, detail: b.detail, ...(b.recordId ? { recordId: b.recordId } : {}) });
  };
  // One pass over the records: their raw references, and their bytes against their audit entry.
  let records = 0;
  const interrupted: VaultVerifyReport['interrupted'] = [];
  for await (const r of eachRecord(layout)) {
    if (index) bound(recordBindingProblem(layout, index, r));
    if (!r.ok) {
      problems.push({ problem: 'bad-record', path: join(layout.recordsDir, r.file), detail: r.error });
      continue;
    }
    records++;
    const record = r.record;
    if (record.state === 'interrupted') interrupted.push(interruptedNote(record.id, record.interrupted));
    for (const [stream, ref] of Object.entries(record.raw)) {
      const path = layout.rawPath(ref.sha256);
      const size = sizes.get(ref.sha256);
      if (size === undefined) {
        // Present-but-unreadable files were reported above; only an absent file is 'missing'.
        if (!present.has(ref.sha256) && record.raw_pruned_at === undefined) {
          problems.push({ problem: 'missing', sha256: ref.sha256, recordId: record.id, path, detail: `${stream} raw bytes of record ${record.id} are gone` });
        }
      } else if (size !== ref.size) {
        problems.push({ problem: 'mismatch', sha256: ref.sha256, recordId: record.id, path, detail: `record ${record.id} says ${stream} is ${ref.size} bytes, file has ${size}` });
      }
    }
  }
  for (const b of index ? await checkMarkersAndRequests(layout, index) : []) bound(b);
  // Running captures' directories: work in progress, not bound to the log, but nothing else belongs there.
  for (const entry of await runningEntries(layout)) {
    if (entry.kind === 'other') problems.push({ problem: 'stray', path: entry.path, detail: 'not a running capture (running/ holds one directory per capture)' });
    else if (entry.kind === 'running') {
      await checkMode(entry.path, PRIVATE_DIR_MODE, problems);
      try {
        const handle = await openRunning(layout, entry.name);
        if (handle === null) problems.push({ problem: 'bad-record', path: entry.path, detail: 'running capture without its meta.json' });
        else await handle.close();
      } catch (err) {
        problems.push({ problem: 'bad-record', path: entry.path, detail: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  const unfinished = [...(index?.unfinished ?? [])].map(([record, seq]) => ({ record, seq }));
  return { problems, rawFiles, records, unfinished, interrupted };
}

/** What an interrupted record says of itself (counts only; anything else in the field is ignored). */
function interruptedNote(record: string, v: unknown): VaultVerifyReport['interrupted'][number] {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const counts = (x: unknown): Record<string, number> =>
    Object.fromEntries(Object.entries(typeof x === 'object' && x !== null ? x : {}).filter(([k, n]) => /^[a-z]{1,16}$/.test(k) && Number.isSafeInteger(n)));
  return { record, owner_pid: Number.isSafeInteger(o.owner_pid) ? (o.owner_pid as number) : null, raw_bytes_seen: counts(o.raw_bytes_seen), raw_bytes_stored: counts(o.raw_bytes_stored) };
}

async function checkMode(path: string, expected: number, problems: VaultProblem[], optional = false, followLink = false): Promise<void> {
  const st = await (followLink ? stat : lstat)(path).catch((err: unknown) => {
    if (optional && isErrno(err, 'ENOENT')) return null;
    throw err;
  });
  if (st?.isSymbolicLink()) {
    problems.push({ problem: 'stray', path, detail: 'a symbolic link where the vault keeps its own file or directory' });
  } else if (st && (st.mode & 0o777) !== expected) {
    problems.push({ problem: 'bad-mode', path, detail: `mode ${octal(st.mode)}, expected ${octal(expected)}` });
  }
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}
