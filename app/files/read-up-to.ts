import { readSync } from 'node:fs';

/**
 * Reads `length` bytes of descriptor `fd` from file offset `pos` into `buf` at `at`, as many
 * reads as it takes; stops early only at the end of the file. Returns the bytes read.
 */
export function readUpTo(fd: number, buf: Uint8Array, at: number, length: number, pos: number): number {
  let n = 0;
  while (n < length) {
    const got = readSync(fd, buf, at + n, length - n, pos + n);
    if (got === 0) break;
    n += got;
  }
  return n;
}
