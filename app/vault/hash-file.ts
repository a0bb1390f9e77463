import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';

const READ_CHUNK = 1 << 20;

/**
 * Streams a file through sha256 and returns `{sha256, size}`. Opens with O_NOFOLLOW so a symlink
 * planted in the vault cannot make verify hash (and vouch for) a file outside it.
 */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let size = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { sha256: hash.digest('hex'), size };
  } finally {
    await fh.close();
  }
}
