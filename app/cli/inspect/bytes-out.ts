import type { StdoutWriter } from '../stdio';

/**
 * A growable byte buffer that text is written into directly (`buf[p++] = …`): callers
 * {@link reserve} room first, then write and advance `p`.
 */
export class ByteBuffer {
  buf: Buffer;
  /** A view of `buf` for 32-bit stores (`setInt32(p, word, true)`). */
  view: DataView;
  p = 0;
  /**
   * Bumped whenever bytes before `p` may be overwritten (the buffer is written out or reset):
   * text at an earlier position is still there only while the epoch is the same.
   */
  epoch = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  /** Replaces the buffer (its first `p` bytes are copied over). */
  protected replace(size: number): void {
    const next = Buffer.allocUnsafe(size);
    if (this.p > 0) this.buf.copy(next, 0, 0, this.p);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /**
   * Writes into `bytes` from now on (its first `p` bytes are copied over), e.g. memory a row writer
   * writes rows into without a copy. The buffer is replaced as usual when more room is needed.
   */
  adopt(bytes: Uint8Array): void {
    const next = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.p > 0) this.buf.copy(next, 0, 0, this.p);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  /** Makes room for `n` more bytes at `p`. */
  reserve(n: number): void {
    if (this.p + n <= this.buf.length) return;
    this.replace(Math.max(this.buf.length * 2, this.p + n));
  }

  /** Empties the buffer. */
  reset(): void {
    this.p = 0;
    this.epoch++;
  }

  /** Appends a string as UTF-8. */
  text(s: string): void {
    this.reserve(s.length * 3);
    this.p += this.buf.write(s, this.p, 'utf8');
  }
}

/**
 * Output gathered into one buffer and written in large pieces: the buffer is reused while the
 * writer writes synchronously to a descriptor, and replaced when it hands data to a stream (which
 * may keep a reference until it is consumed).
 */
export class ByteOutput extends ByteBuffer {
  constructor(private readonly writer: StdoutWriter, readonly flushAt = 1 << 20) {
    super(flushAt + (64 << 10));
  }

  /** Whether enough has gathered to write it out. */
  get full(): boolean {
    return this.p >= this.flushAt;
  }

  /** Writes out what has gathered. */
  async flush(): Promise<void> {
    if (this.p === 0) return;
    const data = this.buf.subarray(0, this.p);
    await this.writer.write(data);
    this.reset();
    if (!this.writer.synchronous) this.replace(this.buf.length);
  }
}
