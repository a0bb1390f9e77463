/** Where output goes: a descriptor written synchronously, or a stream (see StdoutWriter). */
export interface OutputWriter {
  /** Whether writes go straight to the descriptor: a written buffer may then be reused at once. */
  readonly synchronous: boolean;
  /** Writes all of `data`. */
  write(data: Uint8Array): Promise<void>;
}

/**
 * A growable byte buffer: {@link text} appends to it, and the dump writes into it in place (a
 * ByteSink: it makes room with {@link reserve} and advances `p`).
 */
export class ByteBuffer {
  buf: Buffer;
  p = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Replaces the buffer with a new one of `size` (its first `p` bytes are copied over). */
  protected replace(size: number): void {
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.p);
    this.buf = next;
  }

  /** Makes room for `n` more bytes at `p`. */
  reserve(n: number): void {
    if (this.p + n <= this.buf.length) return;
    this.replace(Math.max(this.buf.length * 2, this.p + n));
  }

  /** Empties the buffer. */
  reset(): void {
    this.p = 0;
  }

  /** Appends a string as UTF-8. */
  text(s: string): void {
    this.reserve(s.length * 3);
    this.p += this.buf.write(s, this.p, 'utf8');
  }
}

/**
 * Output gathered into one buffer and written in large pieces. The buffer is reused: a stream
 * (which may keep a reference until it is consumed) gets a copy. Only when a descriptor turns
 * non-blocking in the middle of a write, and the stream took the rest, is it replaced.
 */
export class ByteOutput extends ByteBuffer {
  constructor(private readonly writer: OutputWriter, readonly flushAt = 1 << 20) {
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
    if (this.writer.synchronous) {
      await this.writer.write(data);
      // The descriptor turned non-blocking mid-write: the stream may hold the rest of `data`.
      if (!this.writer.synchronous) this.replace(this.buf.length);
    } else {
      // A copy of at most ~1 MiB per flush: negligible beside writing that much text.
      await this.writer.write(Buffer.from(data));
    }
    this.reset();
  }
}
