// What runs of a segmented build share (build-parallel.ts, build-merge.ts): the state of a run at a
// page boundary (Snap), the table runs publish theirs in, and where segments start.
/**
 * A run's state at a page boundary, as far as it decides the rest of the index: counts (where its
 * output stands in its files) and what later output depends on. Two runs at one boundary whose
 * snaps are both `neutral` and `matches` write the same from there on, shifted by the counts.
 *  - neutral: the Parser is at rest (`Sanitizer.parserAtRest`: a fresh Parser would go on the same)
 *    and the last thing the Sanitizer did was to emit text (`quiet`: a map segment came after the
 *    last span or stretch), so no line break or space is pending (those come from spans and
 *    stretches only and are resolved before any text). Overwrite mode: that text was an LF ending
 *    right at the boundary (the emulated line is empty then, as in a fresh Sanitizer).
 *  - textKind: what the Sanitizer reads of its text so far: at a line start (after LF or none yet),
 *    after a space, else other.
 *  - lineKey and seekCut: the display-line cutter's state; mergeable: the open map segment would
 *    take a verbatim run starting at the boundary.
 */
export interface Snap {
  neutral: boolean;
  fresh: boolean;
  textKind: number;
  lineKey: number;
  seekCut: boolean;
  mergeable: boolean;
  spans: number;
  text: number;
  mapClosed: number;
  hasOpen: boolean;
  openT: number;
  openR: number;
  /** Signed like map.bin: negative for a Replaced segment. */
  openLen: number;
  lines: number;
}

const SNAP_FIELDS = 14;

/** Snaps of the page boundaries, written by the run that owns each, read by the run before (shared between threads). */
export class SnapshotTable {
  readonly status: Int32Array;
  readonly fields: Float64Array;

  constructor(readonly pages: number, buffers?: { status: SharedArrayBuffer | ArrayBuffer; fields: SharedArrayBuffer | ArrayBuffer }, shared = false) {
    const mk = (n: number) => (shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n));
    this.status = new Int32Array(buffers?.status ?? mk(4 * (pages + 1)));
    this.fields = new Float64Array(buffers?.fields ?? mk(8 * SNAP_FIELDS * (pages + 1)));
  }

  get buffers(): { status: SharedArrayBuffer | ArrayBuffer; fields: SharedArrayBuffer | ArrayBuffer } {
    return { status: this.status.buffer, fields: this.fields.buffer };
  }

  put(page: number, s: Snap): void {
    const f = this.fields;
    const at = page * SNAP_FIELDS;
    f[at] = s.neutral ? 1 : 0;
    f[at + 1] = s.fresh ? 1 : 0;
    f[at + 2] = s.textKind;
    f[at + 3] = s.lineKey;
    f[at + 4] = s.seekCut ? 1 : 0;
    f[at + 5] = s.mergeable ? 1 : 0;
    f[at + 6] = s.spans;
    f[at + 7] = s.text;
    f[at + 8] = s.mapClosed;
    f[at + 9] = s.hasOpen ? 1 : 0;
    f[at + 10] = s.openT;
    f[at + 11] = s.openR;
    f[at + 12] = s.openLen;
    f[at + 13] = s.lines;
    Atomics.store(this.status, page, s.neutral ? 1 : 2);
    if (this.status.buffer instanceof SharedArrayBuffer) Atomics.notify(this.status, page);
  }

  /** The snap of boundary `page`, or null while its owner has not been there. */
  get(page: number): Snap | null {
    if (Atomics.load(this.status, page) === 0) return null;
    const f = this.fields;
    const at = page * SNAP_FIELDS;
    return {
      neutral: f[at] === 1, fresh: f[at + 1] === 1, textKind: f[at + 2], lineKey: f[at + 3], seekCut: f[at + 4] === 1,
      mergeable: f[at + 5] === 1, spans: f[at + 6], text: f[at + 7], mapClosed: f[at + 8], hasOpen: f[at + 9] === 1,
      openT: f[at + 10], openR: f[at + 11], openLen: f[at + 12], lines: f[at + 13],
    };
  }

  /** Waits (shared tables only) up to `ms` for boundary `page`'s snap; null if it did not come. */
  wait(page: number, ms: number, cancelled: () => boolean): Snap | null {
    const shared = this.status.buffer instanceof SharedArrayBuffer;
    const until = performance.now() + ms;
    while (shared && Atomics.load(this.status, page) === 0 && !cancelled()) {
      const left = until - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.status, page, 0, Math.min(left, 50));
    }
    return this.get(page);
  }
}

/** Two runs at one boundary write the same from there on (see Snap). */
export function matches(a: Snap, b: Snap): boolean {
  return a.neutral && b.neutral && a.textKind === b.textKind && a.lineKey === b.lineKey && a.seekCut === b.seekCut && a.mergeable === b.mergeable;
}

/**
 * Segment starts (page multiples, ascending, first 0) for `size` bytes cut into at most `n`
 * segments; the first takes `firstShare` of the pages (its thread also hashes the rest).
 */
export function planSegments(size: number, pageBytes: number, n: number, firstShare = 1 / Math.max(1, n)): number[] {
  const pages = Math.ceil(size / pageBytes);
  const k = Math.max(1, Math.min(Math.floor(n), pages));
  const starts: number[] = [0];
  if (k === 1) return starts;
  const first = Math.min(pages - (k - 1), Math.max(1, Math.round(pages * firstShare)));
  for (let i = 1; i < k; i++) {
    const s = (first + Math.floor(((i - 1) * (pages - first)) / (k - 1))) * pageBytes;
    if (s > starts[starts.length - 1] && s < size) starts.push(s);
  }
  return starts;
}

/** The segment that owns raw offset `pos` (the last whose start is at or below it). */
export function ownerOf(starts: readonly number[], pos: number): number {
  let j = starts.length - 1;
  while (j > 0 && starts[j] > pos) j--;
  return j;
}


