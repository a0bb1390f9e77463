// Buffered, block-checksummed writers for the index files. Records are written straight into
// typed-array views of one reusable buffer (no object per span), flushed with one write per
// BUFFER_BYTES; the CRC-32 of every BLOCK_BYTES block is computed as it is flushed.
import { closeSync, fchmodSync, openSync, writeSync, constants as fsc } from 'node:fs';
import { crc32 } from 'node:zlib';
import { BLOCK_BYTES } from './format';

/** A multiple of BLOCK_BYTES and of every record size (8, 24, 32, 48), so no record straddles a flush. */
export const BUFFER_BYTES = BLOCK_BYTES * 12;

/** One index file being written: owner-only, created exclusively, never following a link. */
export class ColumnWriter {
  readonly buffer = new ArrayBuffer(BUFFER_BYTES);
  readonly u8 = new Uint8Array(this.buffer);
  readonly f64 = new Float64Array(this.buffer);
  readonly i32 = new Int32Array(this.buffer);
  readonly u16 = new Uint16Array(this.buffer);
  readonly u32 = new Uint32Array(this.buffer);
  /** Bytes used in the buffer. */
  len = 0;
  /** Bytes already flushed to the file. */
  private flushed = 0;
  private readonly sums: number[] = [];
  private fd: number;

  /** `sums`: keep the CRC-32 of each block (a later segment's files are copied, not served: none). */
  constructor(readonly path: string, private readonly withSums = true) {
    this.fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
    fchmodSync(this.fd, 0o600);
  }

  /** Total bytes written so far (flushed + buffered). */
  get bytes(): number {
    return this.flushed + this.len;
  }

  /** Makes room for `n` more bytes in the buffer (n <= BUFFER_BYTES) and returns where they go. */
  reserve(n: number): number {
    if (this.len + n > BUFFER_BYTES) this.flush();
    const at = this.len;
    this.len += n;
    return at;
  }

  /** Appends raw bytes. */
  write(src: Uint8Array): void {
    let k = 0;
    while (k < src.length) {
      if (this.len === BUFFER_BYTES) this.flush();
      const n = Math.min(src.length - k, BUFFER_BYTES - this.len);
      this.u8.set(n === src.length ? src : src.subarray(k, k + n), this.len);
      this.len += n;
      k += n;
    }
  }

  /**
   * Appends a large piece of bytes (a merge's): what does not fill the buffer goes through it,
   * whole blocks are written straight from `src` (its sums taken there), saving a copy.
   */
  writeLarge(src: Uint8Array): void {
    let k = 0;
    if (this.len > 0) {
      const n = Math.min(src.length, BUFFER_BYTES - this.len);
      this.u8.set(src.subarray(0, n), this.len);
      this.len += n;
      k = n;
      if (this.len === BUFFER_BYTES) this.flush();
    }
    const direct = Math.floor((src.length - k) / BLOCK_BYTES) * BLOCK_BYTES;
    if (this.len === 0 && direct > 0) {
      let off = 0;
      while (off < direct) off += writeSync(this.fd, src, k + off, direct - off);
      if (this.withSums) for (let b = 0; b < direct; b += BLOCK_BYTES) this.sums.push(crc32(src.subarray(k + b, k + b + BLOCK_BYTES)));
      this.flushed += direct;
      k += direct;
    }
    if (k < src.length) this.write(src.subarray(k));
  }

  /** Writes the buffer out; only the final flush may leave a partial block. */
  private flush(): void {
    let off = 0;
    while (off < this.len) off += writeSync(this.fd, this.u8, off, this.len - off);
    if (this.withSums) for (let b = 0; b < this.len; b += BLOCK_BYTES) this.sums.push(crc32(this.u8.subarray(b, Math.min(this.len, b + BLOCK_BYTES))));
    this.flushed += this.len;
    this.len = 0;
  }

  /**
   * Flushes and closes; returns the block sums and the size. No fsync: the index is a cache, and
   * a file torn by a crash fails its size or block sums at the next open and is rebuilt.
   */
  close(): { bytes: number; sums: number[] } {
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
    return { bytes: this.flushed, sums: this.sums };
  }

  /** Closes without caring about the content (cancel, failure). */
  abandon(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
