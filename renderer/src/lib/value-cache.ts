// Span values (code points, bytes, final bytes) for chips, only while this window holds a grant:
// main hands them out per grant (getSpanValues), like hex. Fetched per span block and dropped
// with the grant (endGrant clears this cache with the raw pages).
import type { SecretInfo, SecretValue, SpanInfo, SpanValue } from '../../../shared/bridge/types';
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

/** Asks main for the values of the secrets in `[offset, offset + length)` under the current grant. */
export type SecretFetcher = (offset: number, length: number) => Promise<SecretValue[]>;

const MAX_SECRET_VALUES = 256;

/**
 * Suspected secrets' values (the text a redaction chip stands for), only while this window holds a
 * grant that covers them: fetched one secret at a time as its chip is drawn, dropped with the grant.
 * Without a grant nothing is asked and the chip shows its rule alone.
 */
export class SecretValueCache {
  private readonly values = new Map<number, SecretValue | null>();
  private readonly pending = new Set<number>();
  private generation = 0;

  constructor(private readonly onLoad: () => void) {}

  /** The value of `secret` if loaded (null: main gave none, e.g. outside the granted range); asks for it through `fetch`. */
  valueOf(secret: SecretInfo, fetch: SecretFetcher | null): SecretValue | null | undefined {
    if (!fetch) return undefined;
    if (this.values.has(secret.index)) return this.values.get(secret.index);
    if (this.pending.has(secret.index)) return undefined;
    this.pending.add(secret.index);
    const gen = this.generation;
    fetch(secret.offset, Math.max(1, secret.length))
      .then((values) => {
        if (gen !== this.generation) return;
        this.values.set(secret.index, values.find((v) => v.index === secret.index) ?? null);
        while (this.values.size > MAX_SECRET_VALUES) this.values.delete(this.values.keys().next().value as number);
        this.onLoad();
      })
      .catch(() => undefined)
      .finally(() => this.pending.delete(secret.index));
    return undefined;
  }

  clear(): void {
    this.generation++;
    this.values.clear();
    this.pending.clear();
  }
}
