import type { RunningWriter } from '../vault';
import type { StreamName } from './chunk-log';
import type { CaptureObserver, LiveChunk, LiveEarly } from './live-feed';
import { completeUtf8Prefix } from './text-window';

/**
 * The lines of a running record's log.jsonl (app/node/vault/running.ts), one JSON array each:
 *
 *   ["raw", {"stdout": TEMP, "stderr": TEMP}]         where the raw bytes go until committed (names in tmp/)
 *   ["c", seq, seq_end, stream, offset, length, text_offset, text_length, t_ms, out_offset, out_length, redraw]
 *                                                     chunks seq..seq_end of one stream: the first eight
 *                                                     fields are the sealed record's chunk-log row; then
 *                                                     the settled text they made (bytes of STREAM.txt) and
 *                                                     1 when every line break in it redraws in place
 *   ["e", seq, stream, out_offset, text]              early text of an unfinished line (Redactor.preview):
 *                                                     STREAM.txt will go on with it from out_offset
 * STREAM.txt holds the settled text up to meta.json's `text_limit` bytes (the capture's --max-text,
 * cut where a character ends); rows past it name text the file does not hold.
 *   ["end", state, record_sha256]                     state `sealed` (the record and its entry are stored;
 *                                                     sha256 of its bytes) or `failed`; the directory is
 *                                                     removed next
 */
export type RunningRow =
  | readonly ['raw', Readonly<Record<StreamName, string | null>>]
  | readonly ['c', number, number, StreamName, number, number, number, number, number, number, number, 0 | 1]
  | readonly ['e', number, StreamName, number, string]
  | readonly ['end', 'sealed' | 'failed', string | null];

/** Chunks of one stream within this time share a log row (rows stay few whatever the command does). */
const ROW_WINDOW_MS = 100;
/** Past this many rows, a row takes a stream's chunks for a second, across the other stream's. */
const ROW_BUDGET = 100_000;
const COARSE_WINDOW_MS = 1000;

type ChunkRowOut = [ 'c', number, number, StreamName, number, number, number, number, number, number, number, 0 | 1 ];

/**
 * Writes a capture's running record as it runs: the settled text into the stream files, the chunk
 * log (chunks of one stream merged into a row per 100 ms, and per second past ROW_BUDGET rows, so
 * the log stays small for any output) and early text into log.jsonl.
 */
export class RunningRecord implements CaptureObserver {
  /** Rows not yet written, oldest first (one per stream at most, or one in all before the budget). */
  private pending: ChunkRowOut[] = [];
  private rows = 0;
  /** Writes the open rows once their window has passed, so a reader is never more than a window behind. */
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * `textLimit`: settled text kept per stream file (the capture's --max-text, as its live rows
   * show): past it the log's rows go on, their out offsets beyond the file, and the text is the
   * sealed record's (its tail) once the capture ends. Output of any size then costs the running
   * record what the stored text costs.
   */
  constructor(
    readonly writer: RunningWriter,
    readonly textLimit: number = Infinity,
  ) {}

  rawFiles(files: Readonly<Record<StreamName, string | null>>): void {
    this.writer.line(['raw', files]);
  }

  chunk(c: LiveChunk): void {
    const room = this.textLimit - c.outOffset;
    if (room > 0) this.writer.text(c.stream, room >= c.text.length ? c.text : c.text.subarray(0, completeUtf8Prefix(c.text.subarray(0, room))));
    const coarse = this.rows >= ROW_BUDGET;
    const redraw = c.redraw ? 1 : 0;
    const open = coarse ? this.pending.find((r) => r[3] === c.stream) : this.pending[this.pending.length - 1];
    if (open && open[3] === c.stream && open[11] === redraw && c.tMs - open[8] < (coarse ? COARSE_WINDOW_MS : ROW_WINDOW_MS)) {
      open[2] = c.seq;
      open[5] += c.length;
      open[7] += c.textLength;
      open[10] += c.outLength;
      return;
    }
    if (!coarse || open !== undefined) this.writeRows(coarse ? (r) => r[3] === c.stream : () => true);
    this.pending.push(['c', c.seq, c.seq, c.stream, c.offset, c.length, c.textOffset, c.textLength, Math.round(c.tMs * 1000) / 1000, c.outOffset, c.outLength, redraw]);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.writeRows(() => true);
    }, coarse ? COARSE_WINDOW_MS : ROW_WINDOW_MS);
  }

  early(e: LiveEarly): void {
    if (e.outOffset + e.text.length > this.textLimit) return;
    this.writeRows(() => true);
    this.writer.line(['e', e.seq, e.stream, e.outOffset, Buffer.from(e.text).toString('utf8')]);
  }

  wait(): Promise<void> | undefined {
    return this.writer.wait();
  }

  /** Writes the rows still open and the last line; resolves once everything is in the files. */
  async end(state: 'sealed' | 'failed', recordSha256: string | null): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writeRows(() => true);
    this.writer.line(['end', state, recordSha256]);
    await this.writer.close();
  }

  /** Writes the pending rows that `which` selects, in order. */
  private writeRows(which: (r: ChunkRowOut) => boolean): void {
    const keep: ChunkRowOut[] = [];
    for (const r of this.pending) {
      if (which(r)) {
        this.writer.line(r);
        this.rows++;
      } else keep.push(r);
    }
    this.pending = keep;
  }
}

const STREAM = new Set<string>(['stdout', 'stderr']);
const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * One line of a running record's log as read back, checked field by field: null for a line that
 * is not one of {@link RunningRow}'s forms (a reader skips it; the files are work in progress, not
 * evidence, and a power loss may have cut them).
 */
export function parseRunningRow(row: readonly unknown[]): RunningRow | null {
  switch (row[0]) {
    case 'raw': {
      const files = row[1] as Record<string, unknown> | null;
      if (typeof files !== 'object' || files === null) return null;
      const name = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);
      return ['raw', { stdout: name(files.stdout), stderr: name(files.stderr) }];
    }
    case 'c': {
      if (row.length !== 12 || !STREAM.has(row[3] as string) || !row.slice(1, 3).every(count) || !row.slice(4, 8).every(count) || typeof row[8] !== 'number' || !Number.isFinite(row[8]) || !count(row[9]) || !count(row[10]) || (row[11] !== 0 && row[11] !== 1)) return null;
      return row as unknown as RunningRow;
    }
    case 'e':
      return row.length === 5 && count(row[1]) && STREAM.has(row[2] as string) && count(row[3]) && typeof row[4] === 'string' ? (row as unknown as RunningRow) : null;
    case 'end':
      return (row[1] === 'sealed' || row[1] === 'failed') && (row[2] === null || (typeof row[2] === 'string' && /^[0-9a-f]{64}$/.test(row[2]))) ? (row as unknown as RunningRow) : null;
    default:
      return null;
  }
}
