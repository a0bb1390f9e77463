import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno } from '../files/fs-atomic';
import type { VaultLayout } from './layout';
import { isSha256Hex } from './ref';

/**
 * One entry found under `raw/sha256/`: a prefix directory, a well-placed raw file, or something
 * that does not belong (a symbolic link among them: a link's target is outside the vault's control).
 */
export type RawEntry =
  | { readonly kind: 'prefix'; readonly path: string }
  | { readonly kind: 'raw'; readonly sha256: string; readonly path: string }
  | { readonly kind: 'stray'; readonly path: string };

/**
 * Lists everything under `raw/sha256/`, classifying each path: a real `<2 hex>` directory is a
 * prefix; `<2 hex>/<64 hex>` whose name starts with its directory's prefix is a raw file;
 * anything else is a stray.
 */
export async function walkRaw(layout: VaultLayout): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  let prefixes: import('node:fs').Dirent[];
  try {
    prefixes = await readdir(layout.rawRoot, { withFileTypes: true });
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return out;
    throw err;
  }
  prefixes.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const p of prefixes) {
    const dir = join(layout.rawRoot, p.name);
    if (!p.isDirectory() || !/^[0-9a-f]{2}$/.test(p.name)) {
      out.push({ kind: 'stray', path: dir });
      continue;
    }
    out.push({ kind: 'prefix', path: dir });
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const path = join(dir, name);
      if (isSha256Hex(name) && name.startsWith(p.name)) out.push({ kind: 'raw', sha256: name, path });
      else out.push({ kind: 'stray', path });
    }
  }
  return out;
}
