import { closeSync, openSync, constants as fsc } from 'node:fs';
import { readUpTo } from '../../files/read-up-to';
import { MAX_RAW_READ } from '../../../shared/bridge/limits';
import { BridgeError } from '../bridge/errors';

/**
 * Reads raw bytes `[start, end)` of a vault file: at most MAX_RAW_READ bytes a call, opened with
 * O_NOFOLLOW (a link planted in the vault is refused), short at the end of the file.
 * Callers pass a path from `Vault.rawPath` (digest-validated) and a range the grant allowed.
 *
 * Synchronous underneath: a read this size from the page cache takes microseconds, while each of
 * the three thread-pool round trips of an async open/read/close waits for main's event loop. A
 * page replay of a lazy index (40-60 ms of synchronous work) that arrived between them held a
 * jump's bytes back 80-115 ms in bench:viewer (the jump waits for its rows' bytes).
 */
export async function readRawRange(path: string, start: number, end: number): Promise<Uint8Array> {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BridgeError('bad-request', `bad raw range [${start}, ${end})`);
  }
  if (end - start > MAX_RAW_READ) throw new BridgeError('too-large', `a raw read is at most ${MAX_RAW_READ} bytes; asked for ${end - start}`);
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?)');
    throw err;
  }
  try {
    const buf = new Uint8Array(end - start);
    const got = readUpTo(fd, buf, 0, buf.length, start);
    return got === buf.length ? buf : buf.slice(0, got);
  } finally {
    closeSync(fd);
  }
}
