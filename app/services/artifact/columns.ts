// Buffered, block-checksummed writers for the index files. Records are written straight into
// typed-array views of one reusable buffer (no object per span), flushed with one write per
// BUFFER_BYTES; the CRC-32 of every BLOCK_BYTES block is computed as it is flushed.
import { closeSync, fchmodSync, openSync, writeSync, constants as fsc } from 'node:fs';
import { crc32 } from 'node:zlib';
import { BLOCK_BYTES } from './format';

/** A multiple of BLOCK_BYTES and of every record size (8, 24, 32, 48), so no record straddles a flush. */
export const BUFFER_BYTES = BLOCK_BYTES * 12;

/** Trace (AIRLOCK_INDEX_TRACE): ms this thread spent in write(2) and CRC-32. */
export const ioTimes = { write: 0, crc: 0, bytes: 0 };
const timed = Boolean(process.env.AIRLOCK_INDEX_TRACE);

/**
 * One index file being written: owner-only, created exclusively, never following a link; or a
 * writer in memory (see {@link ColumnWriter.memory}).
 */
export class ColumnWriter {
  buffer = new ArrayBuffer(BUFFER_BYTES);
  u8 = new Uint8Array(this.buffer);
  f64 = new Float64Array(this.buffer);
  i32 = new Int32Array(this.buffer);
  u16 = new Uint16Array(this.buffer);
  u32 = new Uint32Array(this.buffer);
  /** Bytes used in the buffer. */
  len = 0;
  /** Bytes already flushed (kept, then to the file). */
  private flushed = 0;
  private sums: number[] = [];
  private fd: number;
  /** A `keep` writer's bytes, whole buffers but maybe the last (all of them once closed). */
  kept: Uint8Array[] = [];

  /** `path` null: a writer in memory only (see {@link ColumnWriter.memory}). */
  constructor(readonly path: string | null) {
    if (path === null) {
      this.fd = -1;
      return;
    }
    this.fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
    fchmodSync(this.fd, 0o600);
  }

  /** What a memory writer does with a full buffer: `keep` it (`kept`), or `drop` it (only `bytes` counts). */
  private memoryMode: 'keep' | 'drop' | null = null;

  /**
   * A writer without a file: an index run counts the bytes of columns it does not store
   * (`drop`); a page replay keeps what it writes to serve it (`keep`, read with {@link contents}).
   */
  static memory(mode: 'keep' | 'drop'): ColumnWriter {
    const w = new ColumnWriter(null);
    w.memoryMode = mode;
    return w;
  }

  /** A `keep` writer's bytes `[from, to)` of everything written, in one array. */
  contents(from = 0, to = this.bytes): Uint8Array {
    if (this.memoryMode !== 'keep') throw new Error('contents() of a writer that does not keep its bytes (internal error)');
    const out = new Uint8Array(Math.max(0, to - from));
    let at = 0;
    const parts = [...this.kept, this.u8.subarray(0, this.len)];
    for (const part of parts) {
      const lo = Math.max(from, at);
      const hi = Math.min(to, at + part.length);
      if (hi > lo) out.set(part.subarray(lo - at, hi - at), lo - from);
      at += part.length;
    }
    return out;
  }

  /** Total bytes written so far (flushed + buffered). */
  get bytes(): number {
    return this.flushed + this.len;
  }

  /**
   * Makes room for `n` more bytes in the buffer (n <= BUFFER_BYTES - BLOCK_BYTES) and returns
   * where they go.
   */
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
   * Writes the buffer out: a file gets the buffer's whole blocks (all of it when `final`), each
   * with its CRC-32, and the partial last block stays at the buffer's start: a reader checks the
   * file in BLOCK_BYTES blocks from offset 0, so a sum must never cover a block cut short in the
   * middle of the file (records whose size does not divide BUFFER_BYTES, 56-byte checkpoints, flush
   * before a full buffer).
   */
  private flush(final = false): void {
    if (this.memoryMode !== null) {
      this.flushMemory();
      return;
    }
    const whole = final ? this.len : this.len - (this.len % BLOCK_BYTES);
    let off = 0;
    let t = timed ? performance.now() : 0;
    while (off < whole) off += writeSync(this.fd, this.u8, off, whole - off);
    if (timed) { const n = performance.now(); ioTimes.write += n - t; ioTimes.bytes += whole; t = n; }
    for (let b = 0; b < whole; b += BLOCK_BYTES) this.sums.push(crc32(this.u8.subarray(b, Math.min(whole, b + BLOCK_BYTES))));
    if (timed) ioTimes.crc += performance.now() - t;
    this.flushed += whole;
    // The rest is under one block and a multiple of 8 (every record size is), so views stay aligned.
    this.u8.copyWithin(0, whole, this.len);
    this.len -= whole;
  }

  /** A new buffer (and its views) in place of one handed over. */
  private freshBuffer(): void {
    this.buffer = new ArrayBuffer(BUFFER_BYTES);
    this.u8 = new Uint8Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.u16 = new Uint16Array(this.buffer);
    this.u32 = new Uint32Array(this.buffer);
  }

  /** flush() of a memory writer: the whole buffer is kept (a new one takes its place) or dropped. */
  private flushMemory(): void {
    if (this.memoryMode === 'keep' && this.len > 0) {
      this.kept.push(new Uint8Array(this.buffer, 0, this.len));
      this.freshBuffer();
    }
    this.flushed += this.len;
    this.len = 0;
  }

  /**
   * Flushes and closes; returns the block sums and the size. No fsync: the index is a cache, and
   * a file torn by a crash fails its size or block sums at the next open and is rebuilt.
   */
  close(): { bytes: number; sums: number[] } {
    this.flush(true);
    if (this.memoryMode !== null) return { bytes: this.flushed, sums: this.sums };
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
