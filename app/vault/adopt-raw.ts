import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno } from '../files/fs-atomic';
import type { VaultLayout } from './layout';
import { createRawWriter, isRawTempName, publishRaw, type RawCommit } from './raw-writer';
import { formatRef } from './ref';


/**
 * Stores what a raw writer whose process died left in `tmp/<name>` as a raw artifact: hashed as it
 * is, published like a committed one (renamed into
 * `raw/sha256/…`, or dropped for an identical stored file). A missing file (the writer never got
 * bytes to the disk) or a null name stores no bytes. Only for a writer that will never write again:
 * the caller has made sure its owner is gone, and holds the retention lock.
 */
export async function adoptRawTemp(layout: VaultLayout, name: string | null): Promise<RawCommit> {
  const empty = async (): Promise<RawCommit> => createRawWriter(layout).commit();
  if (name === null) return empty();
  if (!isRawTempName(name)) throw new Error(`not a raw temp file name: ${JSON.stringify(name.slice(0, 100))}`);
  const path = join(layout.tmpDir, name);
  let fh;
  try {
    fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return empty();
    throw err;
  }
  const hash = createHash('sha256');
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const bytes = buf.subarray(0, bytesRead);
      hash.update(bytes);
      size += bytesRead;
    }
  } finally {
    await fh.close();
  }
  const sha256 = hash.digest('hex');
  if (!(await publishRaw(layout, path, sha256))) await unlink(path).catch(() => undefined);
  return { sha256, size, ref: formatRef(sha256) };
}
