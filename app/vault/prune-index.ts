import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, isErrno } from '../files/fs-atomic';
import type { VaultLayout } from './layout';
import { isSha256Hex } from './ref';

/**
 * The viewer's span-index cache, `<vault>/index/`: one directory per artifact digest (rebuilt
 * on demand, so it is safe to delete), plus `.build-*` (a build in progress) and `<digest>.old-*`
 * (an index being replaced) directories that a crash can leave behind.
 */
export const INDEX_DIR = 'index';

/**
 * Where else the vault keeps what was derived from raw bytes, named by the artifact's digest:
 * the viewer's bookmarks (`bookmarks/<sha256>.json`: offsets into the bytes and notes about them)
 * and screen caches (`screen/<sha256>…`: what a terminal drew). Prune removes every entry whose
 * raw bytes are gone; a new cache of raw-derived data belongs in one of these directories (or in
 * this list), named by the digest.
 */
export const DERIVED_DIRS: readonly string[] = ['bookmarks', 'screen'];

/** What {@link pruneDerived} removed (or, in a dry run, would remove). */
export interface DerivedPruneResult extends IndexPruneResult {
  /** Bookmark and screen-cache entries removed with their raw bytes. */
  readonly derived: number;
}

/** Removes the span-index cache (pruneIndexCache) and the DERIVED_DIRS entries of artifacts whose raw bytes are gone. */
export async function pruneDerived(layout: VaultLayout, hasRaw: (sha256: string) => boolean, leftoverBeforeMs: number, dryRun: boolean): Promise<DerivedPruneResult> {
  const index = await pruneIndexCache(layout, hasRaw, leftoverBeforeMs, dryRun);
  let derived = 0;
  let bytes = index.bytes;
  for (const name of DERIVED_DIRS) {
    const dir = join(layout.root, name);
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) continue;
      throw err;
    }
    let removed = 0;
    for (const entry of entries) {
      const digest = entry.slice(0, 64);
      if (!isSha256Hex(digest) || hasRaw(digest)) continue;
      const path = join(dir, entry);
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      bytes += st.isDirectory() ? await treeBytes(path) : st.size;
      if (!dryRun) await rm(path, { recursive: true, force: true });
      removed++;
    }
    if (!dryRun && removed > 0) await fsyncDir(dir);
    derived += removed;
  }
  return { ...index, bytes, derived };
}

/** What {@link pruneIndexCache} removed (or, in a dry run, would remove). */
export interface IndexPruneResult {
  /** Digests whose cached index went because their raw file is gone. */
  readonly digests: string[];
  /** `.build-*` and `<digest>.old-*` leftovers older than the temp age. */
  readonly leftovers: number;
  readonly bytes: number;
}

/**
 * Removes cached span indexes of artifacts whose raw bytes are gone (`hasRaw` false), and
 * leftovers of interrupted builds whose mtime is before `leftoverBeforeMs` (a younger one may
 * belong to a viewer indexing right now). Names that are neither are left alone. A viewer that
 * has an index open keeps reading it: its descriptors outlive the unlink.
 */
export async function pruneIndexCache(layout: VaultLayout, hasRaw: (sha256: string) => boolean, leftoverBeforeMs: number, dryRun: boolean): Promise<IndexPruneResult> {
  const dir = join(layout.root, INDEX_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { digests: [], leftovers: 0, bytes: 0 };
    throw err;
  }
  const digests: string[] = [];
  let leftovers = 0;
  let bytes = 0;
  for (const name of names.sort()) {
    const path = join(dir, name);
    const st = await lstat(path).catch(() => null);
    if (!st?.isDirectory()) continue;
    const digest: boolean = isSha256Hex(name);
    if (digest) {
      if (hasRaw(name)) continue;
      digests.push(name);
    } else if (name.startsWith('.build-') || /^[0-9a-f]{64}\.old-[0-9a-f]+$/.test(name)) {
      if (st.mtimeMs >= leftoverBeforeMs) continue;
      leftovers++;
    } else {
      continue;
    }
    bytes += await treeBytes(path);
    if (!dryRun) await rm(path, { recursive: true, force: true });
  }
  if (!dryRun && digests.length + leftovers > 0) await fsyncDir(dir);
  return { digests, leftovers, bytes };
}

/** Bytes of the regular files under `dir` (links are not followed). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await treeBytes(p);
    else if (e.isFile()) total += (await lstat(p).catch(() => null))?.size ?? 0;
  }
  return total;
}
