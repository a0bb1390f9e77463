// Spans of the visible window, fetched per block with getSpans and resolved per byte in O(1).
import { MAX_SPANS_PER_CALL } from '../../../shared/bridge/limits';
import type { SpanInfo } from '../../../shared/bridge/types';

/** Bytes of one span block (one getSpans call, or a few on a span-dense artifact). */
export const SPAN_BLOCK = 64 * 1024;
export const MAX_SPAN_BLOCKS = 8;

/** The spans of one block and, per byte, which span (innermost) covers it. */
export interface SpanBlock {
  readonly start: number;
  readonly spans: readonly SpanInfo[];
  /** `cover[i]`: index into `spans` of the innermost span over byte `start + i`, or -1. */
  readonly cover: Int32Array;
}

/** Builds a block: longer spans first so an inner span (a C0 inside a CSI) wins its bytes. */
export function buildBlock(start: number, length: number, spans: readonly SpanInfo[]): SpanBlock {
  const cover = new Int32Array(length).fill(-1);
  const order = spans.map((_, i) => i).sort((a, b) => spans[b].length - spans[a].length);
  for (const i of order) {
    const s = spans[i];
    const from = Math.max(0, s.offset - start);
    const to = Math.min(length, s.offset + s.length - start);
    for (let k = from; k < to; k++) cover[k] = i;
  }
  return { start, spans, cover };
}

export type SpanFetcher = (offset: number, length: number) => Promise<SpanInfo[]>;

/** Fetches every span overlapping `[start, start + length)`, following the per-call limit. */
export async function fetchBlockSpans(fetch: SpanFetcher, start: number, length: number): Promise<SpanInfo[]> {
  const end = start + length;
  const out: SpanInfo[] = [];
  const seen = new Set<number>();
  let from = start;
  for (let guard = 0; guard < 64 && from < end; guard++) {
    const got = await fetch(from, end - from);
    let added = 0;
    for (const s of got) if (!seen.has(s.index)) {
      seen.add(s.index);
      out.push(s);
      added++;
    }
    if (got.length < MAX_SPANS_PER_CALL) break;
    // Ask again from the last span's start (spans sharing it may have been cut off; duplicates
    // are dropped by index); step past it only when that brought nothing new.
    const last = got[got.length - 1];
    from = added > 0 && last.offset > from ? last.offset : Math.max(from + 1, last.offset + 1);
  }
  out.sort((a, b) => a.offset - b.offset);
  return out;
}

export class SpanCache {
  private readonly blocks = new Map<number, SpanBlock>();
  private readonly pending = new Map<number, Promise<void>>();
  /** Per block, the outermost span per byte (built when first asked: only Compare asks). */
  private readonly outer = new WeakMap<SpanBlock, Int32Array>();
  private generation = 0;

  constructor(private readonly fetch: SpanFetcher, private readonly size: number, private readonly onLoad: () => void, readonly maxBlocks = MAX_SPAN_BLOCKS) {}

  block(index: number): SpanBlock | undefined {
    const b = this.blocks.get(index);
    if (b) {
      this.blocks.delete(index);
      this.blocks.set(index, b);
    }
    return b;
  }

  /** The innermost span over `offset`, if its block is loaded (asks for it otherwise). */
  spanAt(offset: number): SpanInfo | null | undefined {
    const index = Math.floor(offset / SPAN_BLOCK);
    const b = this.blocks.get(index);
    if (!b) {
      this.ensure(index);
      return undefined;
    }
    const i = b.cover[offset - b.start];
    return i >= 0 ? b.spans[i] : null;
  }

  /**
   * The outermost span over `offset` (a CSI around a C0 inside it: the CSI), if its block is
   * loaded; undefined otherwise (no fetch). Spans nest and never partly overlap, so the span that
   * crosses a boundary is the outermost one at it.
   */
  outerAt(offset: number): SpanInfo | null | undefined {
    const b = this.blocks.get(Math.floor(offset / SPAN_BLOCK));
    if (!b) return undefined;
    let outer = this.outer.get(b);
    if (!outer) {
      outer = new Int32Array(b.cover.length).fill(-1);
      const order = b.spans.map((_, i) => i).sort((x, y) => b.spans[x].length - b.spans[y].length);
      for (const i of order) {
        const sp = b.spans[i];
        for (let k = Math.max(0, sp.offset - b.start), to = Math.min(outer.length, sp.offset + sp.length - b.start); k < to; k++) outer[k] = i;
      }
      this.outer.set(b, outer);
    }
    const i = outer[offset - b.start];
    return i >= 0 ? b.spans[i] : null;
  }

  ensure(index: number): Promise<void> {
    if (this.blocks.has(index)) return Promise.resolve();
    const existing = this.pending.get(index);
    if (existing) return existing;
    const start = index * SPAN_BLOCK;
    const length = Math.min(SPAN_BLOCK, this.size - start);
    if (length <= 0) return Promise.resolve();
    const gen = this.generation;
    const p = fetchBlockSpans(this.fetch, start, length)
      .then((spans) => {
        if (gen !== this.generation) return;
        this.blocks.set(index, buildBlock(start, length, spans));
        while (this.blocks.size > this.maxBlocks) this.blocks.delete(this.blocks.keys().next().value as number);
        this.onLoad();
      })
      .catch(() => undefined)
      .finally(() => this.pending.delete(index));
    this.pending.set(index, p);
    return p;
  }

  /** Loads the blocks covering `[offset, offset + length)`. */
  ensureRange(offset: number, length: number): Promise<void> {
    const first = Math.floor(offset / SPAN_BLOCK);
    const last = Math.floor(Math.max(offset, offset + length - 1) / SPAN_BLOCK);
    const all: Promise<void>[] = [];
    for (let i = first; i <= last; i++) all.push(this.ensure(i));
    return Promise.all(all).then(() => undefined);
  }

  clear(): void {
    this.generation++;
    this.blocks.clear();
    this.pending.clear();
  }
}
