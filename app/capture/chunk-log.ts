/** The two captured streams, in the order every per-stream map lists them. */
export const STREAMS = ['stdout', 'stderr'] as const;

/** A captured stream's name. */
export type StreamName = (typeof STREAMS)[number];

/** Column names of {@link ChunkLogJson.rows}, in order. */
export const CHUNK_FIELDS = ['seq', 'seq_end', 'stream', 'offset', 'length', 'text_offset', 'text_length', 't_ms'] as const;

/**
 * One row: `[seq, seq_end, stream, offset, length, text_offset, text_length, t_ms]`.
 * `seq`..`seq_end` are the collector's sequence numbers (equal unless rows were coalesced);
 * `offset`/`length` locate the raw bytes in that stream; `text_offset`/`text_length` locate the
 * sanitized text the sanitizer emitted while consuming them (text can lag its raw bytes, e.g. a
 * UTF-8 character split across reads); `t_ms` is when the first chunk arrived, in ms since start.
 */
export type ChunkRow = [number, number, StreamName, number, number, number, number, number];

/** The chunk log as stored in the vault record. */
export interface ChunkLogJson {
  readonly fields: typeof CHUNK_FIELDS;
  readonly rows: ChunkRow[];
  /** Chunks the collector received (each got one sequence number). */
  readonly count: number;
  /** Some rows stand for several consecutive chunks of one stream (see `seq_end`). */
  readonly coalesced: boolean;
  /** false when rows stop early because even coalescing could not keep the log in bounds. */
  readonly complete: boolean;
  /** First sequence number not in `rows` when `complete` is false, else null. */
  readonly omitted_from_seq: number | null;
}

/** Default bound on stored rows; a 64 KiB-chunk capture of 6 GiB would still fit uncoalesced. */
export const MAX_CHUNK_ROWS = 100_000;

/**
 * Records every chunk the collector reads, in arrival order, in bounded memory. Arrival order
 * across the two pipes is the collector's observation, not the order the child wrote in; the
 * sequence numbers say exactly that and no more.
 *
 * Bound: at `maxRows` the log halves its resolution by merging neighbouring rows of the same
 * stream (they are contiguous in that stream, so a merged row is still truthful). If that frees
 * too little (streams strictly alternating), logging stops and the log says where.
 */
export class ChunkLog {
  private seqEnd: Float64Array;
  private offset: Float64Array;
  private length: Float64Array;
  private textOffset: Float64Array;
  private textLength: Float64Array;
  private time: Float64Array;
  private seqStart: Float64Array;
  private stream: Uint8Array;
  private rows = 0;
  private next = 0;
  private merged = false;
  private stoppedAt: number | null = null;

  constructor(private readonly maxRows: number = MAX_CHUNK_ROWS) {
    if (maxRows < 4) throw new RangeError('ChunkLog needs room for at least 4 rows');
    const initial = Math.min(maxRows, 1024);
    this.seqStart = new Float64Array(initial);
    this.seqEnd = new Float64Array(initial);
    this.offset = new Float64Array(initial);
    this.length = new Float64Array(initial);
    this.textOffset = new Float64Array(initial);
    this.textLength = new Float64Array(initial);
    this.time = new Float64Array(initial);
    this.stream = new Uint8Array(initial);
  }

  /** Chunks recorded so far (the next sequence number). */
  get count(): number {
    return this.next;
  }

  /** Logs one chunk and returns its sequence number. */
  add(stream: StreamName, offset: number, length: number, textOffset: number, textLength: number, tMs: number): number {
    const seq = this.next++;
    if (this.stoppedAt !== null) return seq;
    if (this.rows === this.maxRows) {
      this.coalesce();
      if (this.rows > (this.maxRows * 3) / 4) {
        this.stoppedAt = seq;
        return seq;
      }
    }
    if (this.rows === this.seqStart.length) this.grow();
    const i = this.rows++;
    this.seqStart[i] = seq;
    this.seqEnd[i] = seq;
    this.stream[i] = stream === 'stdout' ? 0 : 1;
    this.offset[i] = offset;
    this.length[i] = length;
    this.textOffset[i] = textOffset;
    this.textLength[i] = textLength;
    this.time[i] = tMs;
    return seq;
  }

  /** The log as JSON for the record. */
  toJSON(): ChunkLogJson {
    const rows: ChunkRow[] = new Array(this.rows);
    for (let i = 0; i < this.rows; i++) {
      rows[i] = [
        this.seqStart[i], this.seqEnd[i], STREAMS[this.stream[i]], this.offset[i], this.length[i],
        this.textOffset[i], this.textLength[i], Math.round(this.time[i] * 1000) / 1000,
      ];
    }
    return {
      fields: CHUNK_FIELDS,
      rows,
      count: this.next,
      coalesced: this.merged,
      complete: this.stoppedAt === null,
      omitted_from_seq: this.stoppedAt,
    };
  }

  /** Short summary for the envelope (the rows stay in the record). */
  summary(): { count: number; rows: number; coalesced: boolean; complete: boolean } {
    return { count: this.next, rows: this.rows, coalesced: this.merged, complete: this.stoppedAt === null };
  }

  /** Merges pairs of neighbouring same-stream rows in place. */
  private coalesce(): void {
    let w = 0;
    for (let r = 0; r < this.rows; r++) {
      if (r + 1 < this.rows && this.stream[r] === this.stream[r + 1]) {
        this.copyRow(r, w);
        this.seqEnd[w] = this.seqEnd[r + 1];
        this.length[w] += this.length[r + 1];
        this.textLength[w] += this.textLength[r + 1];
        r++;
        this.merged = true;
      } else {
        this.copyRow(r, w);
      }
      w++;
    }
    this.rows = w;
  }

  private copyRow(from: number, to: number): void {
    if (from === to) return;
    this.seqStart[to] = this.seqStart[from];
    this.seqEnd[to] = this.seqEnd[from];
    this.stream[to] = this.stream[from];
    this.offset[to] = this.offset[from];
    this.length[to] = this.length[from];
    this.textOffset[to] = this.textOffset[from];
    this.textLength[to] = this.textLength[from];
    this.time[to] = this.time[from];
  }

  private grow(): void {
    const size = Math.min(this.maxRows, this.seqStart.length * 2);
    const g = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    const f64 = (n: number): Float64Array => new Float64Array(n);
    this.seqStart = g(this.seqStart, f64);
    this.seqEnd = g(this.seqEnd, f64);
    this.offset = g(this.offset, f64);
    this.length = g(this.length, f64);
    this.textOffset = g(this.textOffset, f64);
    this.textLength = g(this.textLength, f64);
    this.time = g(this.time, f64);
    this.stream = g(this.stream, (n) => new Uint8Array(n));
  }
}
