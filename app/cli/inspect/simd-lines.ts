import type { HexRowWriter } from '../../../shared/hex/row-bytes';
import { LENGTH_WORDS, LENGTH_WORD_MAX, ONE_SLOTS, type AnnotationWriter } from './annotate';
import type { SpanQueue } from './span-queue';

/*
 * The bulk dump's rows and their commonest annotation lines in one SIMD call (row-simd.wat
 * `noted`). AnnotationWriter stays the definition of every line: this plan only copies its
 * single-span templates into the SIMD memory and lists, in start order, the spans of the rows
 * ahead whose lines are exactly such a template with the offset and length filled in. A row with
 * any other line (coalesced spans, a series, a long span, one outside the range) ends the plan,
 * marked for JavaScript, which writes it as before.
 */

/** Bytes per template in the pool; a longer line is JavaScript's. */
const POOL_SLOT = 256;
/** Rows one plan covers at most. */
const MAX_ROWS = 4096;
/** A row with more spans than this is JavaScript's. */
const MAX_ROW_SPANS = 4;
/** Plan entries: 4 words each (start, slot, length, unused); a row's spans and one stop entry. */
const MAX_ENTRIES = MAX_ROWS * MAX_ROW_SPANS + 1;
/** Bytes of a full row (16): the plan covers whole rows only. */
const ROW = 16;

/** What {@link SimdLines.copy} did. */
const enum Copy {
  Done = 0,
  /** The slot's copy is in use by the plan being made (its line changed meanwhile). */
  Conflict = 1,
  /** The line is longer than a pool slot. */
  TooLong = 2,
}

/** A plan of rows and annotation lines for {@link HexRowWriter.writeNotedRows}, in the row writer's SIMD memory. */
export class SimdLines {
  /** Plan entries (start, slot, length, -): `entries` of them after {@link plan}. */
  private readonly planWords: Int32Array;
  private readonly pool: Uint8Array;
  /** Per slot: its line's length, and where its length field starts plus 2^16 times where its offset goes. */
  private readonly dir: Int32Array;
  readonly planAt: number;
  readonly poolAt: number;
  readonly dirAt: number;
  readonly lengthWordsAt: number;
  entries = 0;
  /**
   * The live plan: the stream offset where its rows end (rows before it that were not written yet
   * are still planned, see {@link plan}), its first entry not written yet, and the bytes of all
   * its lines (with a row's most per row left, a bound on what is left to write).
   */
  private liveEnd = 0;
  private next = 0;
  private lineBytes = 0;
  /** Per slot: the generation of AnnotationWriter's line copied into the pool (-1: none), and the plan that last used it. */
  private readonly poolGeneration = new Int32Array(ONE_SLOTS).fill(-1);
  private readonly usedBy = new Int32Array(ONE_SLOTS).fill(-1);
  private planId = 0;

  private constructor(memory: Uint8Array[], private readonly notes: AnnotationWriter, private readonly rowBytes: number) {
    const [plan, pool, dir, words] = memory;
    this.planWords = new Int32Array(plan.buffer, plan.byteOffset, MAX_ENTRIES * 4);
    this.pool = pool;
    this.dir = new Int32Array(dir.buffer, dir.byteOffset, ONE_SLOTS * 2);
    new Int32Array(words.buffer, words.byteOffset, LENGTH_WORD_MAX).set(LENGTH_WORDS);
    this.planAt = plan.byteOffset;
    this.poolAt = pool.byteOffset;
    this.dirAt = dir.byteOffset;
    this.lengthWordsAt = words.byteOffset;
  }

  /**
   * A plan for `rows`' SIMD memory, or null when it has none (another layout, no SIMD, or the
   * memory is used up): the dump then writes every annotated row in JavaScript.
   */
  static create(rows: HexRowWriter, notes: AnnotationWriter, probe: Uint8Array): SimdLines | null {
    const memory = [MAX_ENTRIES * 16, ONE_SLOTS * POOL_SLOT, ONE_SLOTS * 8, LENGTH_WORD_MAX * 4].map((size) => rows.allocate(size));
    // (allocate hands out 64-byte aligned views of the SIMD memory, or plain arrays without it.)
    if (!memory.every((m) => m.buffer === probe.buffer)) return null;
    return new SimdLines(memory, notes, rows.maxRowBytes);
  }

  /**
   * Plans up to `rows` full rows from stream offset `at`, whose rows and lines take at most
   * `room` bytes, with the queue's groups from its head; spans outside `[from, to)` are not
   * planned. Returns the rows planned: the plan stops before a row JavaScript must annotate.
   * Rows without spans cost nothing here: the loop goes from span to span.
   */
  private build(queue: SpanQueue, at: number, rows: number, room: number, from: number, to: number): number {
    const { start, len } = queue;
    const { planWords: plan, dir, notes, rowBytes } = this;
    const id = ++this.planId;
    const n = queue.length;
    if (rows > MAX_ROWS) rows = MAX_ROWS;
    const byRoom = Math.floor(room / rowBytes);
    if (rows > byRoom) rows = byRoom;
    const stop = at + rows * ROW;
    let k = queue.head;
    let j = 0;
    let lineBytes = 0;
    this.entries = 0;
    while (k < n && start[k] < stop) {
      const first = start[k];
      // (Groups before `at` were taken with earlier rows; one would be JavaScript's.)
      const r = first >= at ? Math.floor((first - at) / ROW) : 0;
      const rowEnd = at + (r + 1) * ROW;
      let end = k + 1;
      while (end < n && start[end] < rowEnd) end++;
      const j0 = j;
      let bytes = lineBytes;
      let ok = first >= at && end - k <= MAX_ROW_SPANS && this.plain(queue, k, end, from, to);
      for (let a = k; ok && a < end; a++) {
        const s = notes.oneSlot(queue, a);
        if (this.poolGeneration[s] !== notes.oneGeneration[s]) {
          const copied = this.copy(s, id);
          if (copied === Copy.Conflict && r > 0) {
            // The slot took another line while this plan uses its copy: the plan ends before this row.
            this.entries = j0;
            this.lineBytes = lineBytes;
            return r;
          }
          if (copied !== Copy.Done) {
            ok = false;
            break;
          }
        }
        this.usedBy[s] = id;
        const e = 4 * j++;
        plan[e] = start[a];
        plan[e + 1] = s;
        plan[e + 2] = len[a];
        bytes += dir[2 * s];
      }
      if (ok && (r + 1) * rowBytes + bytes > room) {
        // Its lines do not fit: the plan ends before this row (written when there is room).
        this.entries = j0;
        this.lineBytes = lineBytes;
        return r;
      }
      if (!ok) {
        // This row is JavaScript's: a stop entry in place of its spans.
        plan[4 * j0] = first;
        plan[4 * j0 + 1] = -1;
        this.entries = j0 + 1;
        this.lineBytes = lineBytes;
        return r;
      }
      lineBytes = bytes;
      k = end;
    }
    this.entries = j;
    this.lineBytes = lineBytes;
    // The rows after the last span, as far as the room left by its lines goes.
    const fit = Math.floor((room - lineBytes) / rowBytes);
    return rows < fit ? rows : fit;
  }

  /**
   * Whether the lines of groups `[k, end)` (one row's) are each one span's: no series, no length
   * of 1000 B or more, none outside `[from, to)`, and no two single spans alike (they would be
   * one coalesced line).
   */
  private plain(queue: SpanQueue, k: number, end: number, from: number, to: number): boolean {
    const { start, len, count, members, cls, flags, meaning } = queue;
    for (let a = k; a < end; a++) {
      if (members[a] !== 1 || len[a] >= LENGTH_WORD_MAX || start[a] < from || start[a] >= to) return false;
      if (count[a] !== 1) continue;
      for (let b = k; b < a; b++) {
        if (count[b] === 1 && cls[b] === cls[a] && flags[b] === flags[a] && meaning[b] === meaning[a] && len[b] === len[a]) return false;
      }
    }
    return true;
  }

  /** Copies AnnotationWriter's line of slot `s` into the pool for plan `id` (apart from the plan's loop: rare). */
  private copy(s: number, id: number): Copy {
    if (this.usedBy[s] === id) return Copy.Conflict;
    const line = this.notes.oneLine[s];
    if (line.length > POOL_SLOT) return Copy.TooLong;
    this.pool.set(line, s * POOL_SLOT);
    this.dir[2 * s] = line.length;
    this.dir[2 * s + 1] = this.notes.oneLengthAt[s] | (this.notes.lineOffsetAt << 16);
    this.poolGeneration[s] = this.notes.oneGeneration[s];
    return Copy.Done;
  }

  /**
   * The rows from stream offset `at` that SIMD is to write next, at most `rows`, in at most
   * `room` bytes (see {@link build} for the rest of the arguments): the rest of the live plan
   * when there is one (SIMD stopped at a row JavaScript then wrote), else a new plan. Its entries
   * are {@link entryAt} and {@link entriesLeft}.
   */
  plan(queue: SpanQueue, at: number, rows: number, room: number, from: number, to: number): number {
    if (at < this.liveEnd && ((this.liveEnd - at) / ROW) * this.rowBytes + this.lineBytes <= room) {
      const words = this.planWords;
      let next = this.next;
      // (Entries are stream offsets below 2^32, stored as 32-bit words.)
      while (next < this.entries && words[4 * next] >>> 0 < at) next++;
      this.next = next;
      return Math.min(rows, (this.liveEnd - at) / ROW);
    }
    const planned = this.build(queue, at, rows, room, from, to);
    this.next = 0;
    this.liveEnd = at + planned * ROW;
    return planned;
  }

  /**
   * Forgets the live plan. A plan is made and written within one pass of the dump over the rows
   * it may show (its rows end before the pass's limit), so none is left when the parser goes on;
   * forgetting it anyway keeps a stale one from ever being written without spans added since.
   */
  forget(): void {
    this.liveEnd = 0;
  }

  /** Memory offset of the first entry of the plan not written yet. */
  get entryAt(): number {
    return this.planAt + 16 * this.next;
  }

  /** Entries of the plan not written yet. */
  get entriesLeft(): number {
    return this.entries - this.next;
  }


}
