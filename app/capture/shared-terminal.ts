// stdout and stderr are two writers to one terminal. Each stream has its own Sanitizer (what one
// stream's text is depends on its own bytes), but a terminal reads both in the order they arrive:
// text one stream writes while the other has a sequence open (`printf 'ok \e]0;'` on stdout, then
// an instruction on stderr, then BEL) is read inside that sequence — a title nobody sees — and
// bytes the other stream then sends continue a sequence its own parser never saw. This is the
// reading of both streams together, deny by default: from a chunk that arrives while another
// stream's parser is not at rest, the text of every stream is withheld (counted, a Withheld span)
// until every stream and a parser of both streams in arrival order are at rest again.
import { Sanitizer, type SanitizerOptions } from '../../shared/sanitize';
import type { StreamName } from './chunk-log';

/**
 * Bytes of a stream kept since it was last at rest at a chunk's end: what a parser of
 * both streams must read first when another stream writes meanwhile. A stream that stays inside
 * sequences longer than this (a long OSC, an endless ignore state) cannot be read together with
 * the other: if the other writes then, text is withheld to the end of the capture.
 */
export const MAX_UNSETTLED_BYTES = 1 << 20;

/**
 * Two pipes keep no order between them: writes a command makes back to back (stdout, stderr,
 * stdout) can be read in another order, or the two stdout writes as one read. Chunks read less
 * than this apart are taken as possibly written in either order, and one of them that may open a
 * sequence has the other's text withheld (see {@link SharedTerminal.before}).
 */
export const CONCURRENT_MS = 50;

/**
 * Whether a terminal may read something written right before or inside `bytes` as other than
 * text: an ESC, SO or SI, or a byte some reading takes as a C1 control (a raw 0x80–0x9F not inside
 * a valid UTF-8 character, or an encoded C1, C2 80–9F).
 */
export function mayOpenSequence(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0x80) {
      if (b === 0x1b || b === 0x0e || b === 0x0f) return true;
      continue;
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0 || i + need >= bytes.length) return true;
    if (b === 0xc2 && bytes[i + 1] <= 0x9f) return true;
    for (let k = 1; k <= need; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return true;
    i += need;
  }
  return false;
}

/** A chunk read but not yet sanitized: what {@link SharedTerminal.before} looks ahead at. */
export interface ReadChunk {
  readonly stream: StreamName;
  /** Its bytes; null when they are not at hand (taken as opening a sequence). */
  readonly bytes: Uint8Array | null;
  /** When it was read, ms. */
  readonly tMs: number;
}

/** What the rule needs of a stream's own pipeline. */
export interface SharedTerminalStream {
  readonly name: StreamName;
  /** Its Sanitizer's parser is at rest (read between chunks): see Sanitizer.parserAtRest. */
  readonly atRest: boolean;
  /** Its Sanitizer's sequenceSpans: a chunk that added some held or opened a sequence. */
  readonly sequenceSpans: number;
}

/** A stream's bytes since it was last at rest (null: more than MAX_UNSETTLED_BYTES). */
interface Unsettled {
  chunks: Uint8Array[] | null;
  bytes: number;
}

/**
 * Decides, chunk by chunk in arrival order, whether a chunk's text is withheld because the
 * terminal would read it inside another stream's sequence. {@link before} is asked before the
 * chunk is sanitized, {@link after} told once it was.
 */
export class SharedTerminal {
  private last: StreamName | null = null;
  private readonly unsettled = new Map<StreamName, Unsettled>();
  /** Both streams read in arrival order, from the moment they became entangled; null while they are not. */
  private combined: Sanitizer | null = null;
  /** Entangled for good: a stream was inside sequences too long to read both together. */
  private lost = false;
  /** Whether the stream of the chunk being sanitized was at rest before it, and its sequence spans then. */
  private restBefore = true;
  private spansBefore = 0;
  /** When each stream last read a chunk that was inside, or may have opened, a sequence. */
  private readonly lastActive = new Map<StreamName, number>();

  constructor(
    /** The streams' pipelines. */
    private readonly streams: readonly SharedTerminalStream[],
    private readonly sanitizer: Pick<SanitizerOptions, 'cr' | 'limits'>,
  ) {}

  /**
   * Whether the text of `bytes`, the next chunk of `stream`, is withheld. With `timing` (when it
   * was read, and the chunks read after it that are not sanitized yet, in order), also when the
   * other stream was, or will be within {@link CONCURRENT_MS} of it, inside a sequence or writing
   * one: the two may have been written in the other order.
   */
  before(stream: StreamName, bytes: Uint8Array, timing?: { readonly tMs: number; readonly ahead: Iterable<ReadChunk> }): boolean {
    const streams = this.streams;
    const mine = streams.find((s) => s.name === stream);
    this.restBefore = mine?.atRest ?? false;
    this.spansBefore = mine?.sequenceSpans ?? 0;
    if (!this.lost && this.combined === null && this.last !== null && this.last !== stream) {
      // Every earlier switch happened at rest, so only the stream that wrote last can be inside a
      // sequence, and both streams read together are where its own parser is: a fresh parser fed
      // its bytes since it was last at rest is there too.
      const open = streams.find((s) => s.name !== stream && !s.atRest);
      if (open !== undefined) {
        const kept = this.unsettled.get(open.name);
        if (open.name !== this.last || kept?.chunks === null) this.lost = true;
        else {
          this.combined = new Sanitizer({ cr: this.sanitizer.cr, limits: this.sanitizer.limits, reuseOutputBuffer: true });
          for (const c of kept?.chunks ?? []) this.combined.write(c);
        }
      }
    }
    if (this.combined !== null) this.combined.write(bytes);
    return this.lost || this.combined !== null || (timing !== undefined && this.concurrent(stream, timing.tMs, timing.ahead));
  }

  /** Another stream was active less than CONCURRENT_MS before `tMs`, or a chunk of it read less than that after is. */
  private concurrent(stream: StreamName, tMs: number, ahead: Iterable<ReadChunk>): boolean {
    for (const [name, t] of this.lastActive) if (name !== stream && tMs - t < CONCURRENT_MS) return true;
    for (const c of ahead) {
      if (c.tMs - tMs >= CONCURRENT_MS) break;
      if (c.stream === stream) continue;
      if (c.bytes === null || mayOpenSequence(c.bytes) || !this.streams.find((s) => s.name === c.stream)?.atRest) return true;
    }
    return false;
  }

  /** `bytes`, the chunk of `stream` just sanitized (read at `tMs`, when known). */
  after(stream: StreamName, bytes: Uint8Array, tMs?: number): void {
    this.last = stream;
    const mine = this.streams.find((s) => s.name === stream);
    // Active: it began or ended inside a sequence, or held one (its sanitizer removed one: no scan).
    if (tMs !== undefined && (!this.restBefore || !mine?.atRest || mine.sequenceSpans !== this.spansBefore)) this.lastActive.set(stream, tMs);
    if (mine?.atRest) this.unsettled.delete(stream);
    else {
      const u = this.unsettled.get(stream) ?? { chunks: [], bytes: 0 };
      if (u.chunks !== null) {
        u.bytes += bytes.length;
        if (u.bytes > MAX_UNSETTLED_BYTES) u.chunks = null;
        else u.chunks.push(bytes.slice());
      }
      this.unsettled.set(stream, u);
    }
    if (this.combined !== null && this.combined.parserAtRest && this.streams.every((s) => s.atRest)) {
      this.combined = null;
      this.unsettled.clear();
    }
  }
}
