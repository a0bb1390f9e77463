import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, type CliIo } from './command';
import { readStdin } from './stdio';

/** Bytes per read when inspecting a file. */
const PAGE = 1 << 20;

/**
 * Yields all bytes of FILE (relative to the command's cwd; stdin for `-`), in pages. Each yielded array is the caller's to
 * keep, unless `reuse` is set: then a file's pages are read into one buffer, each valid until the next is asked for
 * (a caller that copies what it keeps spares an allocation per page). A missing, unreadable or non-regular file is a
 * CliError naming it.
 */
export async function* readSource(path: string, io: CliIo, pageSize = PAGE, reuse = false): AsyncGenerator<Uint8Array> {
  if (path === '-') {
    // Cut to pages too: a caller that keeps per-byte state per page relies on the page bound.
    for await (const chunk of readStdin(io)) for (let i = 0; i < chunk.length; i += pageSize) yield chunk.slice(i, i + pageSize);
    return;
  }
  let read = 0;
  // Synchronous calls: a regular file's pages come from the page cache at once, and a round trip
  // through the thread pool per call (open, stat, each page, close) cost more than the call.
  let fd: number | undefined;
  try {
    fd = openSync(resolve(io.cwd, path), 'r');
    if (!fstatSync(fd).isFile()) throw new CliError(`${path} is not a regular file`);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot open ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const shared = reuse ? new Uint8Array(pageSize) : undefined;
    for (;;) {
      const buf = shared ?? new Uint8Array(pageSize);
      const bytesRead = readSync(fd, buf, 0, buf.length, read);
      if (bytesRead === 0) return;
      read += bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    closeSync(fd);
  }
}
