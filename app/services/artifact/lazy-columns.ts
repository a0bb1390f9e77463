// The spans, text, map and line columns of an index (pages.ts), served as if they were files (the
// byte layout of format.ts), so every query reads them the same way, stored or replayed. A read
// finds its pages through the page table and takes each page from a small cache, from the stored
// pages, or by replaying it (replay.ts) from the page its record names.
import { BridgeError } from '../bridge/errors';
import { IndexCorrupt, type BlockFile } from './reader';
import { COLUMN_FIELD, COLUMN_NAMES, COLUMN_RECORD, PageField, STORED_FIELD, type PageTable } from './pages';
import { replayPages, ReplayMismatch, type PageColumns, type ReplaySource } from './replay';

/** What a query reads a column through: a checked file (BlockFile) or a lazy column. */
export interface ColumnFile {
  readonly name: string;
  readonly size: number;
  read(pos: number, len: number): Promise<Buffer>;
  f64(index: number): Promise<number>;
  close(): Promise<void>;
}

/** Pages kept replayed: a query and its neighbours (a text page, the spans of the hex rows on screen) hit them. */
const CACHE_PAGES = 24;
/** A text read over this many pages or more is a search's: its pages are replayed text-only. */
const LONG_READ_PAGES = 8;
const TEXT_ONLY = ['text.bin'] as const;


/** The pages of an index, replayed or read from the stored files, with an LRU of recent ones. */
export class PageStore {
  private readonly cache = new Map<number, PageColumns>();
  /** Pages replayed and stored pages read (for tests and traces). */
  replays = 0;
  storedReads = 0;

  constructor(
    private readonly src: ReplaySource,
    /** The stored files, in PageColumns order. */
    private readonly stored: readonly BlockFile[],
    private readonly onCorrupt: (why: string) => void,
  ) {}

  get table(): PageTable {
    return this.src.table;
  }

  /** What a replay of these pages needs but the table (plain data, for a search's worker threads). */
  get source(): Omit<ReplaySource, 'table'> {
    const { table, ...rest } = this.src;
    void table;
    return rest;
  }

  /** Page `p`'s columns. */
  async page(p: number): Promise<PageColumns> {
    return (await this.pages(p, p))[0];
  }

  /**
   * Pages `from`..`to`: cached ones as they are, stored ones read, and each stretch of the others
   * replayed in one run from the restart of its first page (a long read is one replay, not one a page).
   */
  async pages(from: number, to: number): Promise<PageColumns[]> {
    return this.pagesOf(from, to, false);
  }

  /**
   * The text of pages `from`..`to` for a long read (a search's): replayed text-only and not cached
   * (the cache holds whole pages); cached and stored pages are used as they are.
   */
  async textPages(from: number, to: number): Promise<Uint8Array[]> {
    return (await this.pagesOf(from, to, true)).map((p) => p.text);
  }

  private async pagesOf(from: number, to: number, textOnly: boolean): Promise<PageColumns[]> {
    const t = this.src.table;
    const out: PageColumns[] = [];
    let p = from;
    while (p <= to) {
      const hit = this.cache.get(p);
      if (hit) {
        this.cache.delete(p);
        this.cache.set(p, hit);
        out.push(hit);
        p++;
        continue;
      }
      if (t.get(p, PageField.Restart) < 0) {
        out.push(await this.readStored(p));
        p++;
        continue;
      }
      let end = p;
      while (end < to && !this.cache.has(end + 1) && t.get(end + 1, PageField.Restart) >= 0) end++;
      const restart = t.get(p, PageField.Restart);
      let replayed: PageColumns[];
      try {
        replayed = replayPages(this.src, restart, end, textOnly ? TEXT_ONLY : undefined);
      } catch (err) {
        if (err instanceof ReplayMismatch) this.onCorrupt(err.message);
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?): the pages of a large artifact are read again from them');
        }
        throw err;
      }
      this.replays++;
      if (!textOnly) replayed.forEach((page, i) => this.keep(restart + i, page));
      for (let q = p; q <= end; q++) out.push(replayed[q - restart]);
      p = end + 1;
    }
    return out;
  }

  private async readStored(p: number): Promise<PageColumns> {
    const t = this.src.table;
    this.storedReads++;
    const cols = await Promise.all(this.stored.map(async (f, c) => {
      const want = t.columnBytes(p, c);
      const got = await f.read(t.get(p, STORED_FIELD[c]), want);
      if (got.length !== want) {
        const why = `stored page ${p} is cut short in ${f.name}`;
        this.onCorrupt(why);
        throw new IndexCorrupt(why);
      }
      return got;
    }));
    const page = { spans: cols[0], text: cols[1], map: cols[2], lines: cols[3] };
    this.keep(p, page);
    return page;
  }

  private keep(p: number, page: PageColumns): void {
    this.cache.delete(p);
    this.cache.set(p, page);
    while (this.cache.size > CACHE_PAGES) this.cache.delete(this.cache.keys().next().value as number);
  }
}

/** One of the four columns of an index, read like a file. */
export class LazyColumn implements ColumnFile {
  readonly name: string;
  readonly size: number;

  constructor(private readonly store: PageStore, private readonly column: 0 | 1 | 2 | 3) {
    const t = store.table;
    this.name = COLUMN_NAMES[column];
    this.size = t.columnStart(t.pages, column);
  }

  async read(pos: number, len: number): Promise<Buffer> {
    const end = Math.min(this.size, pos + len);
    if (pos >= end) return Buffer.alloc(0);
    const t = this.store.table;
    const c = this.column;
    const rec = COLUMN_RECORD[c];
    const out = Buffer.allocUnsafe(end - pos);
    const first = t.pageAt(COLUMN_FIELD[c], Math.floor(pos / rec));
    let last = first;
    while (last + 1 < t.pages && t.columnStart(last + 1, c) < end) last++;
    // A long read of text (a search's) replays text only; anything else whole pages, which stay cached.
    const long = c === 1 && last - first >= LONG_READ_PAGES;
    const pages = long ? await this.store.textPages(first, last) : (await this.store.pages(first, last)).map((page) => pageBytes(page, c));
    for (let p = first; p <= last; p++) {
      const start = t.columnStart(p, c);
      const bytes = pages[p - first];
      const lo = Math.max(pos, start);
      const hi = Math.min(end, start + bytes.length);
      if (hi > lo) out.set(bytes.subarray(lo - start, hi - start), lo - pos);
    }
    return out;
  }

  async f64(index: number): Promise<number> {
    return (await this.read(index * 8, 8)).readDoubleLE(0);
  }

  async close(): Promise<void> {
    // The store's files are the reader's to close.
  }
}

function pageBytes(page: PageColumns, c: number): Uint8Array {
  return c === 0 ? page.spans : c === 1 ? page.text : c === 2 ? page.map : page.lines;
}
