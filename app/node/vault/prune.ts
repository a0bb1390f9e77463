import { lstat, readdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ATOMIC_TEMP_SUFFIX, fsyncDir, isErrno } from '../fs-atomic';
import type { VaultLayout } from './layout';
import type { CaptureRecord } from './record';
import { listRecords, writeRecord } from './records';
import { RAW_TEMP_PREFIX, RAW_TEMP_SUFFIX, rawTempOwnerAlive } from './raw-writer';
import { pruneIndexCache, type IndexPruneResult } from './prune-index';
import { holdRetentionLock } from './retention';
import { walkRaw } from './walk-raw';

/** One raw file prune removes, and why. */
export interface PrunedRaw {
  readonly sha256: string;
  readonly size: number;
  /** 'record-age': every record referencing it is past retention; 'orphan': no record references it and its mtime is past retention. */
  readonly reason: 'record-age' | 'orphan';
  /** Ids of the records that referenced these bytes. */
  readonly records: string[];
}

/** Options for {@link pruneVaultRaw}. */
export interface PruneOptions {
  /**
   * Called (and awaited) before each raw file is deleted, e.g. to append a 'raw.pruned' audit
   * entry. If it throws, prune stops: no deletion happens without its record.
   */
  readonly beforeDelete?: (item: PrunedRaw) => void | Promise<void>;
  /**
   * Temp files (crash leftovers) older than this are removed. Default 24 h. A raw temp file whose
   * owner (pid and host are in its name) is still running is kept whatever its age.
   */
  readonly tempMaxAgeMs?: number;
  /** How long to wait for the retention lock (another prune, or a capture storing its record). */
  readonly lockTimeoutMs?: number;
  /** Decide as a real run would but change nothing: no record marked, no file deleted, no callback. */
  readonly dryRun?: boolean;
  /**
   * A shorter retention for the raw bytes of records that note suspected secrets
   * (`raw_suspected_secrets`, written by the redaction stage): such a record is past retention
   * once it is older than this, whatever `olderThanMs` says.
   */
  readonly secretsOlderThanMs?: number;
}

/** What prune did. */
export interface PruneResult {
  readonly cutoff: string;
  readonly pruned: PrunedRaw[];
  readonly bytes: number;
  /** Records that got `raw_pruned_at` in this run. */
  readonly recordsMarked: string[];
  readonly tempFilesRemoved: number;
  /**
   * Record files that could not be read. While any exist no raw file is deleted and no record is
   * marked (`rawKept` is true): an unreadable record may reference any of them.
   */
  readonly unreadableRecords: string[];
  /** True when raw deletion was skipped because some record file could not be read. */
  readonly rawKept: boolean;
  /** The viewer's cached span indexes removed with their raw bytes (see pruneIndexCache). */
  readonly index: IndexPruneResult;
}

/** Default age after which a temp file is treated as a crash leftover. */
export const TEMP_MAX_AGE_MS = 24 * 3_600_000;

/**
 * Deletes raw bytes whose retention ended, keeping records (sanitized text, digests, reports).
 *
 * Policy: retention is measured by record age (`created_at`), not file mtime, because one raw
 * file can be shared by many records (every empty stderr has the same digest). A raw file goes
 * when every record referencing it is older than `now - olderThanMs` or already marked pruned.
 * Raw files no record references (a capture that died between storing raw and writing its
 * record) go by mtime. Nothing is deleted or marked while some record file does not parse, since
 * an unreadable record might reference any raw file (a shared one included).
 *
 * The whole run, snapshot through deletions, holds the vault's retention lock, so a capture
 * cannot reuse (dedup) a raw file and write its record in between; see holdRetentionLock.
 *
 * Order for crash safety: old records are marked `raw_pruned_at` (atomic rewrite) before any
 * raw file is deleted, so an interruption never leaves a record pointing at missing bytes
 * without saying so.
 */
export async function pruneVaultRaw(layout: VaultLayout, olderThanMs: number, now: Date, options: PruneOptions = {}): Promise<PruneResult> {
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) throw new RangeError('olderThanMs must be a non-negative number');
  const release = await holdRetentionLock(layout, { timeoutMs: options.lockTimeoutMs });
  try {
    return await pruneLocked(layout, olderThanMs, now, options);
  } finally {
    await release();
  }
}

async function pruneLocked(layout: VaultLayout, olderThanMs: number, now: Date, options: PruneOptions): Promise<PruneResult> {
  const nowMs = now.getTime();
  const cutoffMs = nowMs - olderThanMs;
  const { records, errors } = await listRecords(layout);
  const rawKept = errors.length > 0;

  const secretsCutoffMs = options.secretsOlderThanMs === undefined ? -Infinity : nowMs - options.secretsOlderThanMs;
  const isOld = (r: CaptureRecord): boolean => {
    const created = Date.parse(r.created_at);
    return created < cutoffMs || (created < secretsCutoffMs && holdsSuspectedSecrets(r));
  };
  const keep = new Set<string>();
  const referencedBy = new Map<string, string[]>();
  for (const r of records) {
    for (const ref of Object.values(r.raw)) {
      if (!isOld(r) && r.raw_pruned_at === undefined) keep.add(ref.sha256);
      const ids = referencedBy.get(ref.sha256) ?? [];
      if (!ids.includes(r.id)) ids.push(r.id);
      referencedBy.set(ref.sha256, ids);
    }
  }

  const recordsMarked: string[] = [];
  for (const r of rawKept ? [] : records) {
    if (isOld(r) && r.raw_pruned_at === undefined) {
      if (!options.dryRun) await writeRecord(layout, { ...r, raw_pruned_at: now.toISOString() }, true);
      recordsMarked.push(r.id);
    }
  }

  const pruned: PrunedRaw[] = [];
  const touchedDirs = new Set<string>();
  let bytes = 0;
  const rawEntries = await walkRaw(layout);
  for (const entry of rawKept ? [] : rawEntries) {
    if (entry.kind !== 'raw' || keep.has(entry.sha256)) continue;
    const st = await lstat(entry.path).catch(() => null);
    if (!st) continue;
    const ids = referencedBy.get(entry.sha256);
    let item: PrunedRaw;
    if (ids) item = { sha256: entry.sha256, size: st.size, reason: 'record-age', records: ids };
    else if (st.mtimeMs < cutoffMs) item = { sha256: entry.sha256, size: st.size, reason: 'orphan', records: [] };
    else continue;
    if (!options.dryRun) {
      await options.beforeDelete?.(item);
      try {
        await unlink(entry.path);
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
      touchedDirs.add(dirname(entry.path));
    }
    pruned.push(item);
    bytes += item.size;
  }
  for (const dir of touchedDirs) await fsyncDir(dir);

  const tempMaxAge = options.tempMaxAgeMs ?? TEMP_MAX_AGE_MS;
  const dry = options.dryRun === true;
  const tempFilesRemoved =
    (await removeStale(layout.tmpDir, (n) => n.startsWith(RAW_TEMP_PREFIX) && n.endsWith(RAW_TEMP_SUFFIX) && !rawTempOwnerAlive(n), nowMs - tempMaxAge, dry)) +
    (await removeStale(layout.recordsDir, (n) => n.startsWith('.') && n.endsWith(ATOMIC_TEMP_SUFFIX), nowMs - tempMaxAge, dry));

  // A cached index is only worth its disk space while its raw bytes exist (a dry run counts the
  // raw files it would delete as gone).
  const gone = new Set(pruned.map((p) => p.sha256));
  const present = new Set(rawEntries.flatMap((e) => (e.kind === 'raw' && !gone.has(e.sha256) ? [e.sha256] : [])));
  const index = await pruneIndexCache(layout, (sha) => present.has(sha), nowMs - tempMaxAge, dry);

  return {
    cutoff: new Date(cutoffMs).toISOString(),
    pruned,
    bytes,
    recordsMarked,
    tempFilesRemoved,
    unreadableRecords: errors.map((e) => e.file),
    rawKept,
    index,
  };
}

/** Whether a record notes suspected secrets in its raw bytes (any stream with a count). */
export function holdsSuspectedSecrets(r: CaptureRecord): boolean {
  const note = r.raw_suspected_secrets as Record<string, { count?: unknown } | null> | undefined;
  if (note === null || typeof note !== 'object') return false;
  return Object.values(note).some((s) => s !== null && typeof s === 'object' && typeof s.count === 'number' && s.count > 0);
}

/** Removes (with `dryRun`, only counts) regular files in `dir` matching `match` whose mtime is before `beforeMs`. */
async function removeStale(dir: string, match: (name: string) => boolean, beforeMs: number, dryRun: boolean): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    if (!match(name)) continue;
    const path = join(dir, name);
    const st = await lstat(path).catch(() => null);
    if (!st?.isFile() || st.mtimeMs >= beforeMs) continue;
    if (!dryRun) await unlink(path).catch(() => undefined);
    removed++;
  }
  if (removed > 0 && !dryRun) await fsyncDir(dir);
  return removed;
}
