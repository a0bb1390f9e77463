import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { MAX_RAW_READ } from '../../../shared/bridge/contract';
import { BridgeError } from '../bridge/errors';

/**
 * Reads raw bytes `[start, end)` of a vault file: at most MAX_RAW_READ bytes a call, opened with
 * O_NOFOLLOW (a link planted in the vault is refused), short at the end of the file.
 * Callers pass a path from `Vault.rawPath` (digest-validated) and a range the grant allowed.
 */
export async function readRawRange(path: string, start: number, end: number): Promise<Uint8Array> {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BridgeError('bad-request', `bad raw range [${start}, ${end})`);
  }
  if (end - start > MAX_RAW_READ) throw new BridgeError('too-large', `a raw read is at most ${MAX_RAW_READ} bytes; asked for ${end - start}`);
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW).catch((err: unknown) => {
    if ((err as { code?: string }).code === 'ENOENT') throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?)');
    throw err;
  });
  try {
    const buf = new Uint8Array(end - start);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return got === buf.length ? buf : buf.slice(0, got);
  } finally {
    await fh.close();
  }
}
