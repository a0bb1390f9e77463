// stdout and stderr are two writers to one terminal. Each stream has its own Sanitizer (what one
// stream's text is depends on its own bytes), but a terminal reads both in the order they arrive:
// text one stream writes while the other has a sequence open (`printf 'ok \e]0;'` on stdout, then
// an instruction on stderr, then BEL) is read inside that sequence — a title nobody sees — and
// bytes the other stream then sends continue a sequence its own parser never saw. This is the
// reading of both streams together, deny by default: from a chunk that arrives while another
// stream is not between sequences, the text of every stream is withheld (counted, a Withheld span)
// until every stream and a parser of both streams in arrival order are between sequences again.
import { Sanitizer, type SanitizerOptions } from '../../shared/sanitize';
import type { StreamName } from './chunk-log';

/**
 * Bytes of a stream kept since it was last between sequences at a chunk's end: what a parser of
 * both streams must read first when another stream writes meanwhile. A stream that stays inside
 * sequences longer than this (a long OSC, an endless ignore state) cannot be read together with
 * the other: if the other writes then, text is withheld to the end of the capture.
 */
export const MAX_UNSETTLED_BYTES = 1 << 20;

/** What the rule needs of a stream's own pipeline. */
export interface SharedTerminalStream {
  readonly name: StreamName;
  /** Its Sanitizer's parser is at rest (read between chunks): see Sanitizer.parserAtRest. */
  readonly atRest: boolean;
}

/** A stream's bytes since it was last between sequences (null: more than MAX_UNSETTLED_BYTES). */
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
  /** Chunks whose text was withheld, and their raw bytes. */
  readonly withheld = { chunks: 0, bytes: 0 };

  constructor(
    /** The streams' pipelines (asked each time: a capture opens them after making this). */
    private readonly streamsOf: () => readonly SharedTerminalStream[],
    private readonly sanitizer: Pick<SanitizerOptions, 'cr' | 'limits'>,
  ) {}

  /** Whether the text of `bytes`, the next chunk of `stream`, is withheld. */
  before(stream: StreamName, bytes: Uint8Array): boolean {
    if (!this.lost && this.combined === null && this.last !== null && this.last !== stream) {
      // Every earlier switch happened between sequences, so only the stream that wrote last can be
      // inside one, and both streams read together are where its own parser is: a fresh parser fed
      // its bytes since it was last between sequences is there too.
      const open = this.streamsOf().find((s) => s.name !== stream && !s.atRest);
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
    const withhold = this.lost || this.combined !== null;
    if (withhold) {
      this.withheld.chunks++;
      this.withheld.bytes += bytes.length;
    }
    return withhold;
  }

  /** `bytes`, the chunk of `stream` just sanitized. */
  after(stream: StreamName, bytes: Uint8Array): void {
    this.last = stream;
    const mine = this.streamsOf().find((s) => s.name === stream);
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
    if (this.combined !== null && this.combined.parserAtRest && this.streamsOf().every((s) => s.atRest)) {
      this.combined = null;
      this.unsettled.clear();
    }
  }
}
