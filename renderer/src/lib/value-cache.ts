// Span values (code points, bytes, final bytes) for chips, only while this window holds a grant:
// main hands them out per grant (getSpanValues), like hex. Fetched per span block and dropped
// with the grant (endGrant clears this cache with the raw pages).
import type { SpanInfo, SpanValue } from '../../../shared/bridge/types';
import { SPAN_BLOCK } from './span-cache';

/** Asks main for the values of the spans in `[offset, offset + length)` under the current grant. */
export type ValueFetcher = (offset: number, length: number) => Promise<SpanValue[]>;

const MAX_VALUE_BLOCKS = 16;

export class SpanValueCache {
  private readonly blocks = new Map<number, Map<number, number>>();
  private readonly pending = new Set<number>();
  private generation = 0;

  constructor(private readonly onLoad: () => void) {}

  /** The value of `span` if loaded; asks for its block through `fetch` (null: no grant, no value). */
  valueOf(span: SpanInfo, fetch: ValueFetcher | null): number | undefined {
    if (!fetch) return undefined;
    const index = Math.floor(span.offset / SPAN_BLOCK);
    const block = this.blocks.get(index);
    if (!block) {
      this.ensure(index, fetch);
      return undefined;
    }
    return block.get(span.index);
  }

  private ensure(index: number, fetch: ValueFetcher): void {
    if (this.pending.has(index)) return;
    this.pending.add(index);
    const gen = this.generation;
    fetch(index * SPAN_BLOCK, SPAN_BLOCK)
      .then((values) => {
        if (gen !== this.generation) return;
        this.blocks.set(index, new Map(values.map((v) => [v.index, v.code])));
        while (this.blocks.size > MAX_VALUE_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
        this.onLoad();
      })
      // Outside the granted range, or the grant ended: the chip keeps its class and meaning.
      .catch(() => undefined)
      .finally(() => this.pending.delete(index));
  }

  clear(): void {
    this.generation++;
    this.blocks.clear();
    this.pending.clear();
  }
}
