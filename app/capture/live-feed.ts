import type { StreamName } from './chunk-log';
import type { StreamCapture } from './stream-capture';

/**
 * One chunk as the collector logged it, with the text the redaction stage settled while the
 * chunk was processed. The text is final: the stored text of the stream is these pieces in order.
 */
export interface LiveChunk {
  /** The collector's sequence number (the chunk log's `seq`). */
  readonly seq: number;
  readonly stream: StreamName;
  /** Raw offset and length of the chunk in its stream (length 0: the text the stream's end made). */
  readonly offset: number;
  readonly length: number;
  /** Sanitized text offset and length (the chunk log's coordinates, before redaction). */
  readonly textOffset: number;
  readonly textLength: number;
  /** Arrival, ms since the capture started. */
  readonly tMs: number;
  /** Where `text` begins in the stream's settled (redacted) text. */
  readonly outOffset: number;
  /** Bytes of settled text the chunk made (`text` holds them up to the observers' text limit). */
  readonly outLength: number;
  /**
   * The settled text: a view, valid during the call (copy what you keep). Past the largest
   * {@link CaptureObserver.textLimit} of the observers it is cut short (empty once the stream's
   * text is past it): nobody would show it, and copying every byte of a large output costs.
   */
  readonly text: Uint8Array;
  /**
   * The chunk held no LF: every line break in `text` came from a control that redraws in place
   * (CR, a cursor move), so the lines it ends were overwritten on a terminal (a progress bar).
   */
  readonly redraw: boolean;
  /** The chunk's raw bytes: a view, valid during the call (empty for the text a stream's end made). */
  readonly raw: Uint8Array;
}

/**
 * Text of an unfinished line that may be shown before the line ends (Redactor.preview): the
 * stream's settled text will go on with exactly these bytes, from `outOffset` on. Each event
 * carries only what earlier ones of the same line did not.
 */
export interface LiveEarly {
  /** The stream's latest chunk. */
  readonly seq: number;
  readonly stream: StreamName;
  readonly outOffset: number;
  /** A fresh copy. */
  readonly text: Uint8Array;
}

/** Who follows a capture as it runs: the terminal's rows, the running record, MCP progress. */
export interface CaptureObserver {
  /** The temp files the raw bytes go to until they are committed (`RawWriter.tempFile`). */
  rawFiles?(files: Readonly<Record<StreamName, string | null>>): void;
  chunk(c: LiveChunk): void;
  early?(e: LiveEarly): void;
  /**
   * Asked after each batch of chunks: a promise while the observer cannot keep up (its output
   * is backed up); the collector stops reading the command's pipes until it settles.
   */
  wait?(): Promise<void> | undefined;
  /** Settled text per stream this observer uses (default: all of it); chunks past it carry their length only. */
  readonly textLimit?: number;
}

/**
 * Quiet time after which an unfinished line is shown (a prompt, a progress line), and the most
 * time a line that keeps growing waits to be shown again.
 */
export const QUIET_MS = 300;
export const HEARTBEAT_MS = 2000;

interface StreamFeed {
  readonly capture: StreamCapture;
  readonly name: StreamName;
  /** Settled text of the chunk being processed: `buffer[0, length)` (within the text limit), `pending` bytes in all. */
  buffer: Uint8Array;
  length: number;
  pending: number;
  lastSeq: number;
  lastChunkAt: number;
  lastEarlyAt: number;
  /** Settled text so far, and how far early text went beyond it (always ≥ settled). */
  settled: number;
  earlyEnd: number;
  timer: ReturnType<typeof setTimeout> | null;
  ended: boolean;
}

/**
 * Turns what runCapture does into {@link CaptureObserver} events: each logged chunk with the text
 * it settled, and, when a stream has gone quiet (or a growing line has waited long), the part of
 * its unfinished line that the redaction stage lets show.
 */
export class LiveFeed {
  private readonly streams = new Map<StreamName, StreamFeed>();

  constructor(
    private readonly observer: CaptureObserver,
    private readonly now: () => number,
  ) {}

  /** Starts following a stream: its settled text is collected per chunk from here on. */
  add(name: StreamName, capture: StreamCapture): void {
    const t = this.now();
    const feed: StreamFeed = { capture, name, buffer: new Uint8Array(64 * 1024), length: 0, pending: 0, lastSeq: -1, lastChunkAt: t, lastEarlyAt: t, settled: 0, earlyEnd: 0, timer: null, ended: false };
    // The pieces are views into the redaction stage's buffer, which a later piece of the same
    // write may reuse: each is copied as it comes, into the stream's buffer (reused per chunk, so
    // following a capture makes no garbage per chunk).
    const limit = this.observer.textLimit ?? Infinity;
    capture.onSettled = (piece) => {
      feed.pending += piece.length;
      // Past every observer's text limit only the length counts.
      if (feed.settled + feed.length >= limit) return;
      if (feed.length + piece.length > feed.buffer.length) {
        const grown = new Uint8Array(Math.max(feed.buffer.length * 2, feed.length + piece.length));
        grown.set(feed.buffer.subarray(0, feed.length));
        feed.buffer = grown;
      }
      feed.buffer.set(piece, feed.length);
      feed.length += piece.length;
    };
    this.streams.set(name, feed);
  }

  /** After the collector sanitized and logged one chunk (`raw` is its raw bytes; empty for the end text). */
  chunk(row: Omit<LiveChunk, 'text' | 'outOffset' | 'outLength' | 'redraw' | 'raw'>, raw: Uint8Array): void {
    const feed = this.streams.get(row.stream)!;
    const text = feed.buffer.subarray(0, feed.length);
    const outLength = feed.pending;
    feed.length = 0;
    feed.pending = 0;
    const outOffset = feed.settled;
    feed.settled += outLength;
    if (feed.earlyEnd < feed.settled) feed.earlyEnd = feed.settled;
    feed.lastSeq = row.seq;
    feed.lastChunkAt = this.now();
    const redraw = raw.length > 0 && text.length > 0 && text.includes(0x0a) && !raw.includes(0x0a);
    this.observer.chunk({ ...row, outOffset, outLength, text, redraw, raw });
    if (!feed.ended) this.arm(feed, QUIET_MS);
  }

  /**
   * Hands on text the redaction stage settled without a new chunk (its end flushed a held line):
   * as part of the stream's latest chunk.
   */
  settle(name: StreamName, row: Omit<LiveChunk, 'seq' | 'text' | 'outOffset' | 'outLength' | 'redraw' | 'raw'>): void {
    const feed = this.streams.get(name);
    if (feed && feed.pending > 0) this.chunk({ ...row, seq: feed.lastSeq }, EMPTY);
  }

  /** The stream's text has ended: nothing more is shown early. */
  end(name: StreamName): void {
    const feed = this.streams.get(name);
    if (!feed) return;
    feed.ended = true;
    if (feed.timer) clearTimeout(feed.timer);
    feed.timer = null;
  }

  /** Stops every timer (the capture is over, or failed). */
  close(): void {
    for (const name of this.streams.keys()) this.end(name);
  }

  private arm(feed: StreamFeed, ms: number): void {
    if (feed.timer !== null || this.observer.early === undefined) return;
    feed.timer = setTimeout(() => {
      feed.timer = null;
      if (feed.ended) return;
      const t = this.now();
      const sinceChunk = t - feed.lastChunkAt;
      if (sinceChunk >= QUIET_MS || t - feed.lastEarlyAt >= HEARTBEAT_MS) this.showEarly(feed, t);
      // Still busy: look again when it has gone quiet or the heartbeat is due; once quiet, the next chunk arms.
      if (sinceChunk < QUIET_MS) this.arm(feed, Math.max(1, Math.min(QUIET_MS - sinceChunk, HEARTBEAT_MS - (t - feed.lastEarlyAt))));
    }, ms);
  }

  private showEarly(feed: StreamFeed, t: number): void {
    feed.lastEarlyAt = t;
    const shown = feed.capture.preview();
    const end = feed.settled + shown.length;
    if (end <= feed.earlyEnd) return;
    const text = shown.slice(feed.earlyEnd - feed.settled);
    const outOffset = feed.earlyEnd;
    feed.earlyEnd = end;
    this.observer.early!({ seq: feed.lastSeq, stream: feed.name, outOffset, text });
  }
}

const EMPTY = new Uint8Array(0);

/** One observer that hands every event to each of `observers` (in order) and waits while any of them does. */
export function fanOut(observers: readonly (CaptureObserver | undefined)[]): CaptureObserver {
  const list = observers.filter((o): o is CaptureObserver => o !== undefined);
  return {
    rawFiles: (files) => list.forEach((o) => o.rawFiles?.(files)),
    chunk: (c) => list.forEach((o) => o.chunk(c)),
    early: (e) => list.forEach((o) => o.early?.(e)),
    wait: () => {
      const waits = list.map((o) => o.wait?.()).filter((w): w is Promise<void> => w !== undefined);
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
    },
    textLimit: Math.max(0, ...list.map((o) => o.textLimit ?? Infinity)),
  };
}
