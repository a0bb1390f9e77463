import { DEFAULT_POLICY, type RedactionPolicy } from './allowlist';
import { MAX_KEY_BYTES, MAX_LINE_BYTES, scanBytes, type Detection } from './detect';
import { LOOKALIKE_REPLACEMENT, markerBytes, type Redaction } from './marker';
import { isKeyLine } from './pem';
import { lookalikesIn, showablePrefix } from './preview';
import { charBoundary, decodeUtf8 } from './utf8';

/** What the stage did to one stream: counts by rule (never a value or a hash of one). */
export interface StreamRedactionReport {
  /** Redactions in the whole stream (also those a text window later leaves out). */
  readonly count: number;
  /** Redactions by rule id. */
  readonly rules: Record<string, number>;
  /** Look-alikes of the marker's bracket in the command's output, replaced by U+FFFD. */
  readonly lookalikes: number;
}

export interface RedactorOptions {
  readonly policy?: RedactionPolicy;
  /** false: find and count only, the text passes unchanged (`--redact off`). Default true. */
  readonly replace?: boolean;
  /** Redactions listed at most (the counts always cover all). Default {@link MAX_LISTED}. */
  readonly maxListed?: number;
  /**
   * Told each redaction as it is made (`offset`/`length` in the sanitized text), in text order:
   * a consumer that keeps every one (the viewer's index) streams them instead of a list in memory.
   */
  readonly onRedaction?: (rule: string, offset: number, length: number) => void;
}

/** Redactions a stream lists at most; a record of hostile output stays bounded. */
export const MAX_LISTED = 10_000;
/** Text held back while a line has not ended; past it the line is cut (with context kept). */
const MAX_PENDING = MAX_LINE_BYTES;
/** Context kept before such a cut, and text kept after it for detections that cross it. */
const CUT_CONTEXT = 4096;
/** A private key block still open is held back up to this size before it is redacted in parts. */
const MAX_KEY_HOLD = MAX_KEY_BYTES;
/** Key-shaped lines at the end of what arrived are held back (a footer may follow) up to this size. */
const MAX_LINE_HOLD = 16 * 1024;

/**
 * The redaction stage for one stream of sanitized text. It sees the text as the Sanitizer emits
 * it, in chunks, and works on whole lines: a line is held until its LF arrives (a secret split
 * across reads is seen whole), a line longer than 64 KiB is cut with 4 KiB of context kept on
 * both sides, an open private key block is held until its footer (up to 64 KiB), and key-shaped
 * lines at the end of a chunk are held in case a footer without header follows (up to 16 KiB).
 * Memory is bounded by those limits; each byte is scanned a bounded number of times.
 *
 * Output: the text with each secret replaced by its marker and marker look-alikes replaced (see
 * marker.ts), and the list of redactions with their positions in both texts.
 */
export class Redactor {
  private readonly policy: RedactionPolicy;
  private readonly replace: boolean;
  private readonly maxListed: number;
  private readonly onRedaction: RedactorOptions['onRedaction'];
  private pending = new Uint8Array(0);
  private pendingLen = 0;
  /** Leading bytes of `pending` already emitted: context for the next scan only. */
  private contextLen = 0;
  /** Sanitized-text offset of pending[0]. */
  private base = 0;
  /** Bytes of output so far. */
  private delivered = 0;
  /** Key-shaped lines held at the start of pending (after the context), checked when they arrived. */
  private heldKeyBytes = 0;
  /** A private key block was redacted up to the end of the last emitted text and may go on. */
  private inKey = false;
  private readonly counts = new Map<string, number>();
  private total = 0;
  private lookalikeCount = 0;
  private readonly list: Redaction[] = [];
  private listedAll = true;
  private out: Uint8Array[] = [];

  constructor(options: RedactorOptions = {}) {
    this.policy = options.policy ?? DEFAULT_POLICY;
    this.replace = options.replace ?? true;
    this.maxListed = options.maxListed ?? MAX_LISTED;
    this.onRedaction = options.onRedaction;
  }

  /** Takes the next chunk of sanitized text; returns the output it completes (possibly empty). */
  write(chunk: Uint8Array): Uint8Array {
    this.feed(chunk);
    return this.take();
  }

  /**
   * Like {@link write}, but hands the output to `sink` in pieces, without joining them: a piece
   * may be a view of `chunk` (lines that hold nothing to redact), to be used (copied) at once,
   * as the Sanitizer's reused output is.
   */
  writeTo(chunk: Uint8Array, sink: (piece: Uint8Array) => void): void {
    this.feed(chunk);
    for (const piece of this.out) sink(piece);
    this.out = [];
  }

  private feed(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    let rest = chunk;
    // A line begun in an earlier chunk ends through the general path; the lines after it may
    // then pass as they are.
    if (this.pendingLen > 0 && !this.inKey && this.heldKeyBytes === 0) {
      const lf = chunk.indexOf(0x0a);
      if (lf < 0) return this.general(chunk);
      this.general(chunk.subarray(0, lf + 1));
      rest = chunk.subarray(lf + 1);
    }
    if (rest.length > 0 && !this.direct(rest)) this.general(rest);
  }

  private general(chunk: Uint8Array): void {
    const scanFrom = this.pendingLen;
    this.append(chunk);
    this.drain(scanFrom);
  }

  /**
   * The common case without a copy: nothing is held, and the chunk's whole lines hold no secret,
   * no look-alike, no key block and do not end with a key-shaped line: they are emitted as a view
   * and the rest of the chunk is held. Returns false (having done nothing) otherwise.
   */
  private direct(chunk: Uint8Array): boolean {
    if (this.pendingLen !== 0 || this.inKey || this.heldKeyBytes !== 0) return false;
    const end = lastLf(chunk, chunk.length - 1) + 1;
    if (end === 0) return false;
    const scan = scanBytes(chunk, 0, end, this.policy, false);
    if (scan.detections.length > 0 || scan.lookalikes.length > 0 || scan.openKey !== null) return false;
    const lastLine = lastLf(chunk, end - 2) + 1;
    if (end - 1 - lastLine >= 40 && end - 1 - lastLine <= 101 && isKeyLine(decodeUtf8(chunk.subarray(lastLine, end - 1)))) return false;
    this.push(chunk.subarray(0, end));
    this.append(chunk.subarray(end));
    this.base += end;
    return true;
  }

  /** Ends the stream: everything held is scanned and emitted. */
  end(): Uint8Array {
    if (this.pendingLen > this.contextLen) this.process(this.pendingLen, true);
    this.pendingLen = 0;
    this.contextLen = 0;
    return this.take();
  }

  /**
   * The part of the held, unfinished line that may be shown before its line ends (a live log's
   * partial row), as the output will begin it: a copy, with marker look-alikes replaced. Empty
   * while complete lines are held (a key block, key-shaped lines) or nothing can be shown; see
   * showablePrefix for why no byte of it can turn out to be part of a redaction. The held text
   * stays held: {@link write} and {@link end} emit it as usual, and their output for this line
   * begins with what this returned. With `replace` false (count only) everything held is shown.
   */
  preview(): Uint8Array {
    const from = this.contextLen;
    const end = this.pendingLen;
    if (end <= from || this.inKey || this.heldKeyBytes > 0 || this.pending.subarray(from, end).includes(0x0a)) return EMPTY;
    if (!this.replace) return this.pending.slice(from, end);
    const cut = showablePrefix(this.pending, from, end);
    if (cut === from) return EMPTY;
    const out = this.pending.slice(from, cut);
    for (const at of lookalikesIn(this.pending, from, cut)) out.set(LOOKALIKE_REPLACEMENT, at - from);
    return out;
  }

  /** The counts so far. */
  report(): StreamRedactionReport {
    return { count: this.total, rules: Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : 1))), lookalikes: this.lookalikeCount };
  }

  /** The redactions so far, in text order (at most maxListed), and whether that is all of them. */
  redactions(): { list: readonly Redaction[]; all: boolean } {
    return { list: this.list, all: this.listedAll };
  }

  /** Bytes emitted so far. */
  get deliveredBytes(): number {
    return this.delivered;
  }

  /**
   * Nothing is held: every byte written so far was emitted, no key block is open and no line waits
   * for a footer. A Redactor that is idle after some text goes on exactly as a fresh one would on
   * what follows (offsets apart): the viewer's index joins runs that began at different points there.
   */
  get idle(): boolean {
    return this.pendingLen === 0 && !this.inKey && this.heldKeyBytes === 0;
  }

  private append(chunk: Uint8Array): void {
    const need = this.pendingLen + chunk.length;
    if (need > this.pending.length) {
      const grown = new Uint8Array(Math.max(need, this.pending.length * 2, 4096));
      grown.set(this.pending.subarray(0, this.pendingLen));
      this.pending = grown;
    }
    this.pending.set(chunk, this.pendingLen);
    this.pendingLen = need;
  }

  /** Processes what the new bytes (from `scanFrom`) complete: whole lines, or a cut of an overlong one. */
  private drain(scanFrom: number): void {
    for (;;) {
      const lf = lastLf(this.pending, this.pendingLen - 1);
      if (lf >= Math.max(scanFrom, this.contextLen)) {
        if (!this.process(lf + 1, false)) return;
        // Whole lines may still be held (a key block redacted in parts stops inside them).
        scanFrom = 0;
        continue;
      }
      if (this.pendingLen - this.contextLen > MAX_PENDING) {
        if (!this.process(charBoundary(this.pending, this.pendingLen - CUT_CONTEXT), false, true)) return;
        scanFrom = this.pendingLen;
        continue;
      }
      return;
    }
  }

  /**
   * Scans pending[contextLen, end) (with the rest of pending as lookahead on a cut), emits what is
   * settled and keeps the rest. Returns false when nothing could be emitted (all of it is held).
   */
  private process(end: number, final: boolean, cut = false): boolean {
    const scanEnd = cut ? this.pendingLen : end;
    const scan = scanBytes(this.pending.subarray(0, scanEnd), this.contextLen, scanEnd, this.policy, this.inKey);
    let emitEnd = end;
    let open = scan.openKey;
    if (open && !final && scanEnd - open.start <= MAX_KEY_HOLD) {
      // Held until its footer or the first line that cannot belong to it.
      emitEnd = open.start;
      open = null;
    }
    const spans: Detection[] = [];
    for (const d of scan.detections) {
      if (d.start >= emitEnd) break;
      spans.push(d);
      if (cut && d.end > emitEnd) emitEnd = d.end;
    }
    if (open) {
      // The stream ended inside a key block (redacted to its last key character), or the block
      // outgrew the hold: redacted as far as it was read, and the rest goes on as the same block.
      spans.push({ rule: 'private-key', start: open.start, end: open.end });
      emitEnd = final ? Math.max(emitEnd, open.end) : open.end;
    }
    if (!final && !cut && !scan.openKey) emitEnd = this.holdKeyLines(emitEnd);
    else this.heldKeyBytes = 0;
    if (emitEnd <= this.contextLen) return false;
    // A block redacted before its end goes on in the next text.
    this.inKey = open !== null && !final;
    this.emit(emitEnd, spans.filter((s) => s.start < emitEnd), scan.lookalikes.filter((p) => p < emitEnd));
    return true;
  }

  /**
   * Moves the end of what is emitted before the key-shaped lines that end it (a footer without
   * header may follow them). Lines held the last time were checked then and are not read again.
   */
  private holdKeyLines(end: number): number {
    const verified = this.contextLen + this.heldKeyBytes;
    let start = end;
    while (start > verified) {
      const lineEnd = start - 1;
      const lineStart = lastLf(this.pending, lineEnd - 1) + 1;
      if (lineStart < verified || lineEnd - lineStart < 40 || lineEnd - lineStart > 101) break;
      if (!isKeyLine(decodeUtf8(this.pending.subarray(lineStart, lineEnd)))) break;
      start = lineStart;
    }
    if (start === verified) start = this.contextLen;
    // Past the bound the oldest held lines go out (they stay unredacted unless a header came before).
    while (end - start > MAX_LINE_HOLD) start = this.pending.indexOf(0x0a, start) + 1;
    this.heldKeyBytes = end - start;
    return start;
  }

  /** Emits pending[contextLen, end) with `spans` (byte ranges in pending) replaced by markers. */
  private emit(end: number, spans: readonly Detection[], lookalikes: number[]): void {
    let at = this.contextLen;
    let li = 0;
    const copy = (to: number): void => {
      if (to <= at) return;
      const seg = this.pending.slice(at, to);
      if (this.replace) {
        while (li < lookalikes.length && lookalikes[li] < to) {
          const p = lookalikes[li++] - at;
          if (p >= 0) {
            seg.set(LOOKALIKE_REPLACEMENT, p);
            this.lookalikeCount++;
          }
        }
      }
      this.push(seg);
      at = to;
    };
    for (const s of spans) {
      if (s.start < at) continue;
      copy(s.start);
      this.count(s.rule, this.base + s.start, s.end - s.start);
      if (this.replace) {
        this.push(markerBytes(s.rule));
        at = s.end;
      }
    }
    copy(end);
    // Keep context after a cut (the next scan needs what came before), nothing after whole lines.
    const keepContext = end < this.pendingLen && this.pending[end - 1] !== 0x0a ? Math.min(CUT_CONTEXT, end) : 0;
    const dropped = end - keepContext;
    this.pending.copyWithin(0, dropped, this.pendingLen);
    this.pendingLen -= dropped;
    this.base += dropped;
    this.contextLen = keepContext;
  }

  private count(rule: string, offset: number, length: number): void {
    this.total++;
    this.counts.set(rule, (this.counts.get(rule) ?? 0) + 1);
    if (!this.replace) return;
    this.onRedaction?.(rule, offset, length);
    if (this.list.length < this.maxListed) this.list.push({ rule, offset, length, at: this.delivered });
    else this.listedAll = false;
  }

  private push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.out.push(bytes);
    this.delivered += bytes.length;
  }

  private take(): Uint8Array {
    if (this.out.length === 0) return EMPTY;
    if (this.out.length === 1) {
      const one = this.out[0];
      this.out = [];
      return one;
    }
    const all = new Uint8Array(this.out.reduce((n, b) => n + b.length, 0));
    let o = 0;
    for (const b of this.out) {
      all.set(b, o);
      o += b.length;
    }
    this.out = [];
    return all;
  }
}

const EMPTY = new Uint8Array(0);

/** Index of the last LF at or before `from` (-1 when there is none; a negative `from` finds none). */
function lastLf(b: Uint8Array, from: number): number {
  return from < 0 ? -1 : b.lastIndexOf(0x0a, from);
}

