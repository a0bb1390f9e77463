import { gutterRows, TEXT_GUTTER } from '../terminal/gutter';
import { textWidth, wrapLine } from '../terminal/fit';
import { terminalSafe, terminalSafeLine } from '../terminal/terminal-safe';
import type { StreamName } from './chunk-log';
import type { CaptureEnvelope } from './envelope';
import type { CaptureObserver, LiveChunk, LiveEarly } from './live-feed';
import { CONTINUATION, formatBytes, seamLine, summaryLines } from './render';
import { HEARTBEAT_MS } from './live-feed';

/** How a stream's rows are labelled: short, and never the start of one of Airlock's own lines. */
const TAG: Record<StreamName, string> = { stdout: 'out', stderr: 'err' };

interface StreamRows {
  readonly name: StreamName;
  /** The collector's number of the stream's latest chunk (its rows carry it). */
  seq: number;
  /** Settled text (out offset) shown so far: chunks and early text, up to the live budget. */
  shown: number;
  /** Whether the stream's next text begins a line (else it continues one already begun). */
  atLineStart: boolean;
  /** Lines a terminal would have redrawn in place (CR progress) left out since the last note. */
  collapsed: number;
  lastRedrawShownAt: number;
  /** Past the live budget: rows are no longer shown, only a periodic count. */
  over: boolean;
  lastOverNoteAt: number;
}

export interface LiveRowsOptions {
  /** Terminal width, or Infinity off a terminal (a file, a pipe: lines stay whole). */
  readonly columns: number;
  /**
   * Settled text per stream shown live (the capture's --max-text): past it a stream's rows stop
   * and the tail the record keeps follows at the end, so output of any size costs what the
   * stored text costs.
   */
  readonly budget: number;
  /** Writes rendered text; false when the destination is backed up (see {@link LiveRows.wait}). */
  readonly write: (text: string) => boolean;
  /** Resolves when the destination has taken what it was given (a stream's 'drain'). */
  readonly drained: () => Promise<void>;
}

/**
 * `airlock capture`'s readable output as the command runs, on a terminal or into a pipe: each
 * sanitized line as it settles, behind a label naming its stream and the collector's sequence
 * number (`out 3| …`, `err 4| …`) and the gutter; a row that continues a line interrupted by
 * the other stream (or, on a terminal, cut at its width) has `+` after the number. An unfinished
 * line (a prompt, a progress line) is shown once its stream has gone quiet, only as far as the
 * redaction stage lets it (Redactor.preview), and continued in place when the rest arrives.
 * Lines a terminal would redraw in place (CR progress) are collapsed to one shown every few
 * seconds, and the count of those left out is said. Everything is terminalSafe. At the end,
 * {@link finish} writes what the live rows did not show of the stored text and the summary.
 */
export class LiveRows implements CaptureObserver {
  private readonly streams: Record<StreamName, StreamRows>;
  /** The row begun and not ended: its stream and its width so far. */
  private open: { stream: StreamName; width: number } | null = null;
  /** Set while the destination is backed up: resolves once it drained. */
  private draining: Promise<void> | null = null;
  private readonly start = Date.now();

  /** Text this observer shows per stream (LiveFeed copies no more). */
  readonly textLimit: number;

  constructor(private readonly options: LiveRowsOptions) {
    this.textLimit = options.budget;
    const fresh = (name: StreamName): StreamRows => ({ name, seq: 0, shown: 0, atLineStart: true, collapsed: 0, lastRedrawShownAt: -Infinity, over: false, lastOverNoteAt: -Infinity });
    this.streams = { stdout: fresh('stdout'), stderr: fresh('stderr') };
  }

  /** The first line: what runs, as which record. */
  begin(recordId: string, command: string): void {
    this.note(`airlock: running ${terminalSafeLine(command)} as record ${terminalSafeLine(recordId)}; its output follows as it arrives (out: stdout, err: stderr)`);
  }

  chunk(c: LiveChunk): void {
    const st = this.streams[c.stream];
    st.seq = c.seq;
    // Early text already showed the start of this chunk's text.
    const skip = Math.max(0, st.shown - c.outOffset);
    if (skip >= c.outLength) return;
    const text = c.text.subarray(Math.min(skip, c.text.length));
    const from = c.outOffset + skip;
    // Up to the budget, cut after the last whole line; past it only a count now and then.
    const allowed = st.over ? 0 : Math.max(0, this.options.budget - from);
    const room = allowed < text.length ? (allowed === 0 ? 0 : text.lastIndexOf(0x0a, allowed - 1) + 1) : allowed;
    const shown = room < text.length ? text.subarray(0, room) : text;
    if (shown.length > 0) {
      const str = Buffer.from(shown.buffer, shown.byteOffset, shown.length).toString('utf8');
      // Lines that redraw in place: text line breaks no LF made (read back from a running
      // record, which keeps no raw bytes, its redraw flag: every break of the chunk).
      const redrawn = c.raw.length > 0 ? breaks(str) - countLf(c.raw) : c.redraw ? breaks(str) : 0;
      if (redrawn > 0) this.redrawn(st, str, redrawn, c.tMs);
      else {
        this.sayCollapsed(st);
        this.put(st, str);
      }
      st.shown = from + shown.length;
    }
    if (from + shown.length < c.outOffset + c.outLength) this.overBudget(st, c.outOffset + c.outLength);
  }

  early(e: LiveEarly): void {
    const st = this.streams[e.stream];
    if (e.outOffset !== st.shown || st.over || st.shown + e.text.length > this.options.budget) return;
    this.sayCollapsed(st);
    this.put(st, Buffer.from(e.text).toString('utf8'));
    st.shown += e.text.length;
  }

  wait(): Promise<void> | undefined {
    return this.draining ?? undefined;
  }

  /**
   * Ends what is shown without a stored envelope (`vault follow`): says what was collapsed, ends
   * an open row, and notes a stream whose text did not end with a newline. Resolves once written.
   */
  async endRows(): Promise<void> {
    for (const name of ['stdout', 'stderr'] as const) {
      const st = this.streams[name];
      this.sayCollapsed(st);
      if (!st.atLineStart) {
        this.endRow();
        this.note(`airlock: (no newline at the end of ${name} so far)`);
        st.atLineStart = true;
      }
    }
    await this.draining;
  }

  /** Writes one of Airlock's own lines between the rows. */
  say(line: string): void {
    this.note(line);
  }

  /**
   * After the capture: ends an open row, shows what the live rows left out of each stream's
   * stored text (its tail past the budget, with the seam where text was omitted), then the
   * summary and `--- end ---`.
   */
  async finish(env: CaptureEnvelope, terminalWidth: number | undefined): Promise<void> {
    for (const name of ['stdout', 'stderr'] as const) {
      const st = this.streams[name];
      this.sayCollapsed(st);
      this.endRow();
      const stored = Buffer.from(env[name], 'utf8');
      const cut = env.text_truncated[name];
      // Where the stored text's tail begins in the stream's settled text.
      const tailStart = cut ? cut.head_bytes + cut.omitted_bytes : 0;
      const storedTailFrom = cut ? cut.head_bytes : 0;
      if (st.shown < tailStart) {
        this.note(seamLine(name, { ...cut!, omitted_bytes: tailStart - st.shown, at_line_boundaries: st.atLineStart && cut!.at_line_boundaries !== false }));
        st.atLineStart = true;
        this.put(st, stored.subarray(storedTailFrom).toString('utf8'));
      } else {
        const settled = cut ? tailStart + (stored.length - storedTailFrom) : stored.length;
        if (st.shown < settled) this.put(st, stored.subarray(storedTailFrom + (st.shown - tailStart)).toString('utf8'));
      }
      if (!st.atLineStart) {
        this.endRow();
        this.note(`airlock: (no newline at the end of ${name})`);
      }
    }
    const width = terminalWidth ?? Infinity;
    for (const line of summaryLines(env)) for (const row of wrapLine(line, width, CONTINUATION)) this.emit(`${row}\n`);
    this.emit('--- end ---\n');
    await this.draining;
  }

  /** Past the live budget: said once, then a count now and then. */
  private overBudget(st: StreamRows, settled: number): void {
    const now = Date.now() - this.start;
    if (!st.over) {
      st.over = true;
      this.sayCollapsed(st);
      this.note(`airlock: ${st.name} passed --max-text ${formatBytes(this.options.budget)}: its rows are no longer shown live; the part the record keeps follows at the end`);
      st.lastOverNoteAt = now;
    } else if (now - st.lastOverNoteAt >= HEARTBEAT_MS) {
      st.lastOverNoteAt = now;
      this.note(`airlock: ${st.name} still running: ${formatBytes(settled)} of text so far`);
    }
  }

  /**
   * A chunk with more line breaks in its text than LFs in its bytes: `redrawn` of them came from
   * controls that redraw in place (CR progress). The line its stream had begun is ended as usual;
   * of the next `redrawn` lines one is shown every few seconds and the rest counted (display only:
   * the record keeps every line). The lines after them are shown.
   */
  private redrawn(st: StreamRows, text: string, redrawn: number, tMs: number): void {
    let at = 0;
    if (!st.atLineStart) {
      const nl = text.indexOf('\n');
      at = nl < 0 ? text.length : nl + 1;
      this.put(st, text.slice(0, at));
      redrawn--;
    }
    for (; redrawn > 0 && at < text.length; redrawn--) {
      const nl = text.indexOf('\n', at);
      if (nl < 0) break;
      if (tMs - st.lastRedrawShownAt >= HEARTBEAT_MS) {
        st.lastRedrawShownAt = tMs;
        this.put(st, text.slice(at, nl + 1));
      } else st.collapsed++;
      at = nl + 1;
    }
    if (at < text.length) {
      this.sayCollapsed(st);
      this.put(st, text.slice(at));
    }
  }

  private sayCollapsed(st: StreamRows): void {
    if (st.collapsed === 0) return;
    const n = st.collapsed;
    st.collapsed = 0;
    this.note(`airlock: ${st.name}: ${n} line${n === 1 ? '' : 's'} redrawn in place (a progress display) not shown; the record has every line`);
  }

  /** Writes one of Airlock's own lines, on a row of its own. */
  private note(line: string): void {
    this.endRow();
    for (const row of wrapLine(line, this.options.columns, CONTINUATION)) this.emit(`${row}\n`);
  }

  /** Ends the open row (its line goes on later on a `+` row). */
  private endRow(): void {
    if (this.open === null) return;
    this.open = null;
    this.emit('\n');
  }

  /** Writes a stream's text, a line at a time, behind its labels. */
  private put(st: StreamRows, text: string): void {
    const columns = this.options.columns;
    const safe = terminalSafe(text);
    let out = '';
    for (let at = 0; at < safe.length; ) {
      const nl = safe.indexOf('\n', at);
      const end = nl < 0 ? safe.length : nl;
      const piece = safe.slice(at, end);
      if (this.open !== null && this.open.stream !== st.name) {
        this.open = null;
        out += '\n';
      }
      // On a terminal, an open row takes more only where it still fits; else the line goes on below.
      if (this.open !== null && columns !== Infinity && (piece.includes('\t') || this.open.width + textWidth(piece) > columns)) {
        this.open = null;
        out += '\n';
      }
      if (this.open !== null) {
        out += piece;
        this.open.width += columns === Infinity ? 0 : textWidth(piece);
      } else {
        const label = `${TAG[st.name]} ${st.seq}${st.atLineStart ? '' : '+'}`;
        if (columns === Infinity) {
          out += `${label}${TEXT_GUTTER}${piece}`;
          this.open = { stream: st.name, width: 0 };
        } else {
          const rows = piece === '' ? [TEXT_GUTTER] : gutterRows(`${piece}\n`, columns - label.length - 1).rows;
          const more = `${TAG[st.name]} ${st.seq}+`;
          out += rows.map((row, i) => `${i === 0 ? label : more}${row}`).join('\n');
          this.open = { stream: st.name, width: textWidth(more) + textWidth(rows[rows.length - 1]) };
        }
      }
      st.atLineStart = false;
      if (nl >= 0) {
        out += '\n';
        this.open = null;
        st.atLineStart = true;
      }
      at = end + (nl >= 0 ? 1 : 0);
    }
    this.emit(out);
  }

  private emit(text: string): void {
    if (text.length > 0 && !this.options.write(text) && this.draining === null) {
      this.draining = this.options.drained().then(() => {
        this.draining = null;
      });
    }
  }
}

function breaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function countLf(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}
