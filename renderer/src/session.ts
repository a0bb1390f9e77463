// Per-artifact caches that are not React state: raw pages and span values (only under a grant),
// span blocks and text pages. Rows read them during render; arrivals bump a version in the view store.
import type { TextLine } from '../../shared/bridge/types';
import { MAX_TEXT_LINES } from '../../shared/bridge/limits';
import { bridge } from './bridge';
import { PAGE_SIZE, PageCache } from './lib/page-cache';
import { SpanCache } from './lib/span-cache';
import { SecretValueCache, SpanValueCache } from './lib/value-cache';
import { useView } from './stores/view';

/** Lines per text page. */
export const TEXT_PAGE = 256;
export const MAX_TEXT_PAGES = 48;

export class TextCache {
  private readonly pages = new Map<number, readonly TextLine[]>();
  private readonly pending = new Set<number>();
  private generation = 0;

  constructor(private readonly ref: string, private readonly onLoad: () => void, private readonly onTotal: (n: number) => void) {}

  /** The line if loaded; asks for its page otherwise. */
  line(n: number): TextLine | undefined {
    const page = Math.floor(n / TEXT_PAGE);
    const lines = this.pages.get(page);
    if (!lines) {
      void this.ensure(page);
      return undefined;
    }
    return lines[n - page * TEXT_PAGE];
  }

  async ensure(page: number): Promise<void> {
    if (this.pages.has(page) || this.pending.has(page)) return;
    this.pending.add(page);
    const gen = this.generation;
    try {
      const got = await bridge().getTextLines(this.ref, page * TEXT_PAGE, Math.min(TEXT_PAGE, MAX_TEXT_LINES));
      if (gen !== this.generation) return;
      this.pages.set(page, got.lines);
      while (this.pages.size > MAX_TEXT_PAGES) this.pages.delete(this.pages.keys().next().value as number);
      this.onTotal(got.totalLines);
      this.onLoad();
    } catch {
      // the row keeps its placeholder; a later render asks again
    } finally {
      this.pending.delete(page);
    }
  }

  /** Lines `[first, first + count)` (fetched as needed). */
  async lines(first: number, count: number): Promise<TextLine[]> {
    const out: TextLine[] = [];
    for (let n = first; n < first + count;) {
      const page = Math.floor(n / TEXT_PAGE);
      await this.ensure(page);
      const lines = this.pages.get(page);
      if (!lines) break;
      const from = n - page * TEXT_PAGE;
      if (from >= lines.length) break;
      const take = lines.slice(from, from + (first + count - n));
      out.push(...take);
      n += take.length;
      if (lines.length < TEXT_PAGE) break;
    }
    return out;
  }

  clear(): void {
    this.generation++;
    this.pages.clear();
    this.pending.clear();
  }
}

export interface Session {
  ref: string;
  size: number;
  pages: PageCache;
  spans: SpanCache;
  /** Span values, under a grant only (cleared with the raw pages when it ends). */
  values: SpanValueCache;
  /** Suspected secrets' values, under a grant only (cleared with the raw pages when it ends). */
  secrets: SecretValueCache;
  text: TextCache;
  /** Raw pages being read, by page index. */
  inflight: Map<number, Promise<void>>;
  /** Bumped on every grant change so late readRaw answers are dropped. */
  rawGeneration: number;
}

let current: Session | null = null;

export function session(): Session | null {
  return current;
}

export function openSession(ref: string, size: number, onTotalLines: (n: number) => void): Session {
  closeSession();
  const bump = (key: 'spanVersion' | 'textVersion') => () => useView.setState((s) => ({ [key]: s[key] + 1 }) as never);
  current = {
    ref, size, pages: new PageCache(), inflight: new Map(), rawGeneration: 0,
    spans: new SpanCache((offset, length) => bridge().getSpans(ref, offset, length), size, bump('spanVersion')),
    text: new TextCache(ref, bump('textVersion'), onTotalLines),
    values: new SpanValueCache(() => {
      bump('textVersion')();
      bump('spanVersion')();
    }),
    secrets: new SecretValueCache(bump('textVersion')),
  };
  return current;
}

export function closeSession(): void {
  if (!current) return;
  current.pages.clear();
  current.spans.clear();
  current.text.clear();
  current.values.clear();
  current.secrets.clear();
  current.inflight.clear();
  current.rawGeneration++;
  current = null;
}

export { PAGE_SIZE };
