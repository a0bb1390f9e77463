// The characters the screen engine follows (engine.ts): per printed character, where its bytes
// are, where it was drawn and what erased it. Characters are numbered in print order (the number
// is what the followed terminal's tags encode) and stored in rows, in number order: first the
// ones an earlier sweep found still on screen, then every one printed since. A sweep
// (engine.ts) settles the characters that left both buffers and keeps only the rest, so the table
// holds at most the emulator's cells plus what was printed since the last sweep, whatever the
// input's length.

export class CharTable {
  /** Row fields. */
  id = new Float64Array(1024);
  offset = new Float64Array(1024);
  bytes = new Uint8Array(1024);
  line = new Int32Array(1024);
  col = new Int32Array(1024);
  erasedBy = new Float64Array(1024);
  visible = new Uint8Array(1024);
  cp = new Uint32Array(1024);
  /** Rows in use. */
  rows = 0;
  /** Characters numbered so far. */
  n = 0;
  /** Rows `[0, kept)` survived the last sweep; characters from number `since` on are rows `kept + (i - since)`. */
  private kept = 0;
  private since = 0;
  /** Zero-width characters the sanitized text keeps, drawn into a character's cell (by its number). */
  readonly marks = new Map<number, string>();
  /** Most rows held at once. */
  peakRows = 0;

  add(offset: number, bytes: number, cp: number): number {
    if (this.rows === this.offset.length) this.grow();
    const r = this.rows++;
    const i = this.n++;
    this.id[r] = i;
    this.offset[r] = offset;
    this.bytes[r] = bytes;
    this.cp[r] = cp;
    this.line[r] = -1;
    this.col[r] = -1;
    this.erasedBy[r] = -1;
    this.visible[r] = 0;
    if (this.rows > this.peakRows) this.peakRows = this.rows;
    return i;
  }

  /** The row of character `i`, or -1 when it is not held (settled by a sweep, or never numbered). */
  row(i: number): number {
    if (i >= this.since) return i < this.n ? this.kept + (i - this.since) : -1;
    let lo = 0;
    let hi = this.kept;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.id[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.kept && this.id[lo] === i ? lo : -1;
  }

  /** Keeps the rows `keep` says (row order), drops the rest; later characters follow them. */
  compact(keep: (r: number) => boolean): void {
    let w = 0;
    for (let r = 0; r < this.rows; r++) {
      if (!keep(r)) {
        this.marks.delete(this.id[r]);
        continue;
      }
      if (w !== r) {
        this.id[w] = this.id[r];
        this.offset[w] = this.offset[r];
        this.bytes[w] = this.bytes[r];
        this.line[w] = this.line[r];
        this.col[w] = this.col[r];
        this.erasedBy[w] = this.erasedBy[r];
        this.cp[w] = this.cp[r];
      }
      this.visible[w] = 0;
      w++;
    }
    this.rows = w;
    this.kept = w;
    this.since = this.n;
  }

  private grow(): void {
    const size = this.offset.length * 2;
    const more = <T extends Float64Array | Uint8Array | Int32Array | Uint32Array>(a: T, b: T): T => (b.set(a), b);
    this.id = more(this.id, new Float64Array(size));
    this.offset = more(this.offset, new Float64Array(size));
    this.bytes = more(this.bytes, new Uint8Array(size));
    this.line = more(this.line, new Int32Array(size));
    this.col = more(this.col, new Int32Array(size));
    this.erasedBy = more(this.erasedBy, new Float64Array(size));
    this.visible = more(this.visible, new Uint8Array(size));
    this.cp = more(this.cp, new Uint32Array(size));
  }
}
