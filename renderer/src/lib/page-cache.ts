// A bounded LRU of raw pages. Raw bytes live here and nowhere else in the renderer, so dropping
// a grant is one `clear()`: nothing raw survives in memory (the rows re-render without it).

/** Bytes per page (readRaw takes at most 1 MiB a call). */
export const PAGE_SIZE = 64 * 1024;
/** Pages kept (4 MiB): a screen needs at most two. */
export const MAX_PAGES = 64;

export class PageCache {
  private readonly pages = new Map<number, Uint8Array>();

  constructor(readonly maxPages = MAX_PAGES) {}

  /** The page, marking it most recently used. */
  get(index: number): Uint8Array | undefined {
    const page = this.pages.get(index);
    if (page !== undefined) {
      this.pages.delete(index);
      this.pages.set(index, page);
    }
    return page;
  }

  /** The page without touching the LRU order. */
  peek(index: number): Uint8Array | undefined {
    return this.pages.get(index);
  }

  has(index: number): boolean {
    return this.pages.has(index);
  }

  set(index: number, bytes: Uint8Array): void {
    this.pages.delete(index);
    this.pages.set(index, bytes);
    while (this.pages.size > this.maxPages) {
      const oldest = this.pages.keys().next().value as number;
      this.pages.get(oldest)?.fill(0);
      this.pages.delete(oldest);
    }
  }

  /** Forgets every page (zeroing the buffers first, so no copy lingers in this heap's views). */
  clear(): void {
    for (const page of this.pages.values()) page.fill(0);
    this.pages.clear();
  }

  get size(): number {
    return this.pages.size;
  }

  get bytesHeld(): number {
    let n = 0;
    for (const page of this.pages.values()) n += page.length;
    return n;
  }

  /** Page indices, least recently used first. */
  keys(): number[] {
    return [...this.pages.keys()];
  }
}

/** Page index of a byte offset. */
export function pageOf(offset: number): number {
  return Math.floor(offset / PAGE_SIZE);
}

/** The byte at `offset` if its page is cached, else undefined. */
export function byteAt(cache: PageCache, offset: number): number | undefined {
  const page = cache.peek(pageOf(offset));
  if (page === undefined) return undefined;
  const at = offset - pageOf(offset) * PAGE_SIZE;
  return at < page.length ? page[at] : undefined;
}

/** Bytes `[offset, offset + length)` if all their pages are cached, else null. */
export function sliceCached(cache: PageCache, offset: number, length: number): Uint8Array | null {
  const out = new Uint8Array(length);
  for (let at = 0; at < length;) {
    const abs = offset + at;
    const index = pageOf(abs);
    const page = cache.peek(index);
    if (page === undefined) return null;
    const from = abs - index * PAGE_SIZE;
    const n = Math.min(length - at, page.length - from);
    if (n <= 0) return null;
    out.set(page.subarray(from, from + n), at);
    at += n;
  }
  return out;
}
