import { readSync, writeSync } from 'node:fs';
import { isErrno } from '../files/fs-atomic';
import type { CliIo } from './command';
import { writeAll } from './write';

/** Bytes asked for per read: large reads keep per-chunk overhead negligible on big inputs. */
const READ_SIZE = 1 << 20;

/**
 * Yields stdin in chunks. With a real descriptor (`io.stdinFd`) it reads synchronously into one
 * reused 1 MiB buffer — the consumer must be done with a chunk before asking for the next — and
 * falls back to the `io.stdin` stream if the descriptor turns out to be non-blocking. Tests pass
 * a stream only.
 */
export async function* readStdin(io: CliIo): AsyncGenerator<Uint8Array> {
  if (io.stdinFd === undefined) {
    yield* io.stdin as AsyncIterable<Uint8Array>;
    return;
  }
  const buf = new Uint8Array(READ_SIZE);
  for (;;) {
    let n: number;
    try {
      n = readSync(io.stdinFd, buf, 0, READ_SIZE, null);
    } catch (err) {
      if (isErrno(err, 'EOF')) return;
      if (!isErrno(err, 'EAGAIN')) throw err;
      // A non-blocking descriptor (the parent's choice): let the event loop wait for data.
      yield* io.stdin as AsyncIterable<Uint8Array>;
      return;
    }
    if (n === 0) return;
    yield buf.subarray(0, n);
  }
}

/**
 * Writes to stdout: synchronously through `io.stdoutFd` when there is one (fast, no queueing), else
 * (or once the descriptor reports EAGAIN) through the stream with back-pressure.
 */
export class StdoutWriter {
  private fd: number | undefined;

  constructor(private readonly io: CliIo) {
    this.fd = io.stdoutFd;
  }

  /** Whether writes still go straight to the descriptor: a written buffer may then be reused at once. */
  get synchronous(): boolean {
    return this.fd !== undefined;
  }

  /** Writes all of `data`. */
  async write(data: Uint8Array): Promise<void> {
    let off = 0;
    while (this.fd !== undefined && off < data.length) {
      try {
        off += writeSync(this.fd, data, off, data.length - off);
      } catch (err) {
        if (!isErrno(err, 'EAGAIN')) throw err;
        this.fd = undefined;
      }
    }
    // The stream gets a copy: it may hold the bytes after this resolves (a short write is only
    // queued), and the caller may reuse its buffer at once (the dump writes its next rows
    // there). A view once let those rows overwrite the queued bytes of the rows before.
    if (off < data.length) await writeAll(this.io.stdout, Buffer.from(data.subarray(off)));
  }
}
