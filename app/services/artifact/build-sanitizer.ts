// The one place the index build uses shared/'s Sanitizer. A run (build-run.ts) needs more of it
// than its output: every offset-map segment as it is made (streamed to disk, not kept: the
// Sanitizer's OffsetMap holds 25 bytes a segment, ~1 GB for a hostile GiB), every ambiguous
// stretch (a boundary after one is not neutral), spans one by one or as counts, and whether its
// parser is at rest. The Sanitizer has no hooks for segments and stretches yet, so they are taken
// by wrapping its instance's `map.add` (the single entry point of segments) and `ambiguous`
// (its sink callback); explicit hooks will replace that here, and only here.
import type { ParserSink } from '../../../shared/parser';
import { Sanitizer, type OffsetMap, type RemovalReport, type SegmentKind } from '../../../shared/sanitize';
import type { IndexSanitizerOptions } from './format';

/** What a run hears from its Sanitizer. */
export interface SanitizerHooks {
  /** Each span, as SanitizerOptions.onSpan has it (a run that stores spans); without it, spans are only counted. */
  readonly onSpan?: ParserSink['span'];
  /** Each offset-map segment, as the OffsetMap's `add` takes it. */
  readonly onSegment: (textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind) => void;
  /** Each ambiguous stretch, after the Sanitizer counted it. */
  readonly onAmbiguous: () => void;
}

/** A Sanitizer as the index build runs it: offset map on (streamed to the hooks), output reused. */
export class BuildSanitizer {
  private readonly sanitizer: Sanitizer;

  /** `precedingText`: what the text before ended with (a replay from a page that is not the first). */
  constructor(options: IndexSanitizerOptions, precedingText: number, hooks: SanitizerHooks) {
    const sanitizer = new Sanitizer({
      cr: options.cr,
      limits: options.limits,
      mapOffsets: true,
      reuseOutputBuffer: true,
      precedingText,
      onSpan: hooks.onSpan,
    });
    const map = sanitizer.map as OffsetMap;
    map.add = hooks.onSegment;
    const ambiguous = sanitizer.ambiguous.bind(sanitizer);
    sanitizer.ambiguous = (offset: number, length: number, flags: number) => {
      hooks.onAmbiguous();
      ambiguous(offset, length, flags);
    };
    this.sanitizer = sanitizer;
  }

  /** The text of `bytes` (valid until the next write or end). */
  write(bytes: Uint8Array): Uint8Array {
    return this.sanitizer.write(bytes);
  }

  end(): Uint8Array {
    return this.sanitizer.end();
  }

  /** A fresh Parser would go on from here as this one does (Sanitizer.parserAtRest). */
  get atRest(): boolean {
    return this.sanitizer.parserAtRest;
  }

  /** Spans reported so far, plain SGR included. */
  get spanTotal(): number {
    return this.sanitizer.spanTotal;
  }

  /** Spans reported so far by class, into `into`. */
  spanCounts(into: Float64Array): void {
    this.sanitizer.spanCounts(into);
  }

  /** Spans from now on also go to `listener` (null: to none), see Sanitizer.listenSpans. */
  listenSpans(listener: ParserSink['span'] | null): void {
    this.sanitizer.listenSpans(listener);
  }

  report(): RemovalReport {
    return this.sanitizer.getReport();
  }
}

/**
 * A Sanitizer for the text alone (no offset map, no span callback: plain SGR only counted), as a
 * search's replay of text runs it; the text is the same.
 */
export function textSanitizer(options: IndexSanitizerOptions, precedingText: number): { write(bytes: Uint8Array): Uint8Array; end(): Uint8Array } {
  return new Sanitizer({ cr: options.cr, limits: options.limits, reuseOutputBuffer: true, precedingText });
}
