// Where hex rows are written: a byte buffer with room made on demand. Alone in its file so that
// code that only needs the buffer (Airlock's own terminal lines) does not load the notation tables.

/** Where a RowWriter writes: `buf[p..]`, after `reserve` made room (it may replace `buf`). */
export interface ByteSink {
  buf: Uint8Array;
  p: number;
  reserve(n: number): void;
}

/** A ByteSink in memory that grows as it is written. */
export class GrowingSink implements ByteSink {
  buf: Uint8Array;
  p = 0;

  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }

  reserve(n: number): void {
    if (this.p + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.p + n));
    next.set(this.buf.subarray(0, this.p));
    this.buf = next;
  }
}
