import { lstat, readdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AuditLog } from '../audit';
import { ATOMIC_TEMP_SUFFIX, fsyncDir, isErrno, writeFileAtomic } from '../files/fs-atomic';
import type { VaultLayout } from './layout';
import type { CaptureRecord } from './record';
import { eachRecord, prunedMarker, prunedMarkerPath, sha256Hex } from './records';
import { RAW_TEMP_PREFIX, RAW_TEMP_SUFFIX, rawTempOwnerAlive } from './raw-writer';
import { pruneDerived, type DerivedPruneResult } from './prune-index';
import { holdRetentionLock } from './retention';
import { walkRaw } from './walk-raw';

/** One raw file prune removes, and why. */
export interface PrunedRaw {
  readonly sha256: string;
  readonly size: number;
  /** 'record-age': every record referencing it is past retention; 'orphan': no record references it and its mtime is past retention. */
  readonly reason: 'record-age' | 'orphan';
  /** How many records referenced these bytes (their `record.pruned` entries name them). */
  readonly records: number;
}

/** Options for {@link pruneVaultRaw}. */
export interface PruneOptions {
  /**
   * Called (and awaited) before each raw file is deleted, e.g. to append a 'raw.pruned' audit
   * entry. If it throws, prune stops: no deletion happens without its record.
   */
  readonly beforeDelete?: (item: PrunedRaw) => void | Promise<void>;
  /**
   * Called once with every digest about to be deleted, before the first deletion: what holds data
   * derived from those bytes outside the vault's own caches (the review queue's approved extracts)
   * lets go of it here. If it throws, nothing is deleted.
   */
  readonly releaseDerived?: (sha256s: readonly string[]) => Promise<void>;
  /** The log the `record.pruned` entries go to (default: the vault's). */
  readonly audit?: AuditLog;
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
  /** Records that got their `raw_pruned_at` marker in this run. */
  readonly recordsMarked: string[];
  readonly tempFilesRemoved: number;
  /**
   * Record files that could not be read. While any exist no raw file is deleted and no record is
   * marked (`rawKept` is true): an unreadable record may reference any of them.
   */
  readonly unreadableRecords: string[];
  /** True when raw deletion was skipped because some record file could not be read. */
  readonly rawKept: boolean;
  /** What went with the raw bytes: cached span indexes, bookmarks, screen caches (see pruneDerived). */
  readonly index: DerivedPruneResult;
}

/** Default age after which a temp file is treated as a crash leftover. */
export const TEMP_MAX_AGE_MS = 24 * 3_600_000;

/**
 * Deletes raw bytes whose retention ended, and everything derived from them, keeping records
 * (sanitized text, digests, reports).
 *
 * Policy: retention is measured by record age (`created_at`), not file mtime, because one raw
 * file can be shared by many records (every empty stderr has the same digest). A raw file goes
 * when every record referencing it is older than `now - olderThanMs` or already marked pruned.
 * Raw files no record references (a capture that died between storing raw and writing its
 * record) go by mtime. Nothing is deleted or marked while some record file does not parse, since
 * an unreadable record might reference any raw file (a shared one included).
 *
 * Records are write-once (their audit entry commits to their bytes), so an old record is marked
 * by a file beside it, `<id>.pruned`, written with its own `record.pruned` entry. Order, for
 * crash safety and so nothing derived outlives its bytes: markers first; then `releaseDerived`
 * (approved extracts of the doomed artifacts are removed); then the raw files; then the caches
 * derived from them (indexes, bookmarks, screen caches). Records are read one at a time as a
 * stream: memory does not grow with their size.
 *
 * The whole run, snapshot through deletions, holds the vault's retention lock, so a capture
 * cannot reuse (dedup) a raw file and write its record in between; see holdRetentionLock.
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
  const dry = options.dryRun === true;
  const secretsCutoffMs = options.secretsOlderThanMs === undefined ? -Infinity : nowMs - options.secretsOlderThanMs;
  const isOld = (r: CaptureRecord): boolean => {
    const created = Date.parse(r.created_at);
    return created < cutoffMs || (created < secretsCutoffMs && holdsSuspectedSecrets(r));
  };
  // Per digest: how many records reference it; `keep` those a record within retention still needs.
  const referenced = new Map<string, number>();
  const keep = new Set<string>();
  const toMark: string[] = [];
  const unreadable: string[] = [];
  for await (const r of eachRecord(layout)) {
    if (!r.ok) {
      unreadable.push(r.file);
      continue;
    }
    const old = isOld(r.record);
    const pruned = r.record.raw_pruned_at !== undefined;
    for (const ref of new Set(Object.values(r.record.raw).map((x) => x.sha256))) {
      referenced.set(ref, (referenced.get(ref) ?? 0) + 1);
      if (!old && !pruned) keep.add(ref);
    }
    if (old && !pruned) toMark.push(r.id);
  }
  const rawKept = unreadable.length > 0;

  const recordsMarked: string[] = [];
  const audit = options.audit ?? AuditLog.forVault(layout.root);
  for (const id of rawKept ? [] : toMark) {
    if (!dry) {
      const at = now.toISOString();
      const marker = prunedMarker(id, at);
      await audit.append('record.pruned', { record: id, raw_pruned_at: at, marker_sha256: sha256Hex(marker) }, async () => {
        await writeFileAtomic(prunedMarkerPath(layout, id), marker);
      });
    }
    recordsMarked.push(id);
  }

  const doomed: PrunedRaw[] = [];
  const rawEntries = await walkRaw(layout);
  for (const entry of rawKept ? [] : rawEntries) {
    if (entry.kind !== 'raw' || keep.has(entry.sha256)) continue;
    const st = await lstat(entry.path).catch(() => null);
    if (!st) continue;
    const count = referenced.get(entry.sha256);
    if (count !== undefined) doomed.push({ sha256: entry.sha256, size: st.size, reason: 'record-age', records: count });
    else if (st.mtimeMs < cutoffMs) doomed.push({ sha256: entry.sha256, size: st.size, reason: 'orphan', records: 0 });
  }

  const pruned: PrunedRaw[] = [];
  let bytes = 0;
  if (!dry && doomed.length > 0) await options.releaseDerived?.(doomed.map((d) => d.sha256));
  const touchedDirs = new Set<string>();
  const pathOf = new Map(rawEntries.flatMap((e) => (e.kind === 'raw' ? [[e.sha256, e.path] as const] : [])));
  for (const item of doomed) {
    const path = pathOf.get(item.sha256)!;
    if (!dry) {
      await options.beforeDelete?.(item);
      try {
        await unlink(path);
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
      touchedDirs.add(dirname(path));
    }
    pruned.push(item);
    bytes += item.size;
  }
  for (const dir of touchedDirs) await fsyncDir(dir);

  const tempMaxAge = options.tempMaxAgeMs ?? TEMP_MAX_AGE_MS;
  const tempFilesRemoved =
    (await removeStale(layout.tmpDir, (n) => n.startsWith(RAW_TEMP_PREFIX) && n.endsWith(RAW_TEMP_SUFFIX) && !rawTempOwnerAlive(n), nowMs - tempMaxAge, dry)) +
    (await removeStale(layout.recordsDir, (n) => n.startsWith('.') && n.endsWith(ATOMIC_TEMP_SUFFIX), nowMs - tempMaxAge, dry));

  // What is derived from raw bytes is only kept while they exist (a dry run counts the raw files
  // it would delete as gone).
  const gone = new Set(pruned.map((p) => p.sha256));
  const present = new Set(rawEntries.flatMap((e) => (e.kind === 'raw' && !gone.has(e.sha256) ? [e.sha256] : [])));
  const index = await pruneDerived(layout, (sha) => present.has(sha), nowMs - tempMaxAge, dry);

  return {
    cutoff: new Date(cutoffMs).toISOString(),
    pruned,
    bytes,
    recordsMarked,
    tempFilesRemoved,
    unreadableRecords: unreadable,
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
