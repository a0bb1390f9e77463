import { writeSync } from 'node:fs';
import { isErrno } from '../../node/fs-atomic';
import type { OutputWriter } from './bytes-out';

/** How long to wait before writing again to a descriptor that was not ready (EAGAIN). */
const RETRY_MS = 2;

/**
 * Writes to a descriptor synchronously, as the dump thread does: it has no stream of its own to
 * fall back to (a worker's stdout is relayed through the main thread, which may be waiting on the
 * dump), so a descriptor that is not ready is waited for and written again.
 */
export class FdWriter implements OutputWriter {
  readonly synchronous = true;
  private readonly pause = new Int32Array(new SharedArrayBuffer(4));

  constructor(private readonly fd: number) {}

  async write(data: Uint8Array): Promise<void> {
    for (let off = 0; off < data.length; ) {
      try {
        off += writeSync(this.fd, data, off, data.length - off);
      } catch (err) {
        if (!isErrno(err, 'EAGAIN')) throw err;
        Atomics.wait(this.pause, 0, 0, RETRY_MS);
      }
    }
  }
}
