// Runs the artifact queries, off main: the query worker (a long-lived thread for the viewer's
// bounded queries) and the search workers (one thread a search) run this, main only forwards
// (query-client.ts). A host keeps its own open indexes (reader.ts) and answers with the public
// projections (public.ts): no span value leaves it except through `spanValues`, which main calls
// only for a grant's range. Everything crossing the thread boundary is plain data.
import { MAX_SPANS_PER_CALL } from '../../../shared/bridge/limits';
import { BridgeError } from '../bridge/errors';
import { Budget, QueryStopped } from './budget';
import { publicSecret, publicSpan, publicTextPage } from './public';
import * as q from './queries';
import { IndexCorrupt, IndexReader, type IndexExpectation } from './reader';
import { warmReplay } from './replay';
import { searchRaw, searchText } from './search';
import { secretsInRaw, secretValues } from './secrets';
import { decodedPayloads } from './payloads';

/** The queries a host runs (the bridge methods of the same names, and spanValues for getSpanValues). */
export type QueryMethod = 'getSpans' | 'findSpan' | 'getMinimap' | 'getTextLines' | 'textPositionOf' | 'spanValues' | 'getSecrets' | 'secretValues' | 'payloads' | 'searchText' | 'searchRaw';

/** One query, as main sends it. */
export interface QueryRequest {
  readonly id: number;
  readonly method: QueryMethod;
  /** The artifact's index directory and what it must match (index queries), or null (searchRaw). */
  readonly index: { readonly sha: string; readonly dir: string; readonly expect: IndexExpectation } | null;
  readonly args: readonly unknown[];
  /** Wall-clock deadline (Date.now()). */
  readonly deadline: number;
  /** Int32 flag main sets to 1 to cancel (absent: only the deadline). */
  readonly cancel?: SharedArrayBuffer;
  /** The worker bundle, for a lazy index's text search to start range threads (null: search here). */
  readonly script?: string | null;
}

/** How a query ended, as plain data. */
export type QueryReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly kind: 'bridge'; readonly code: BridgeError['code']; readonly message: string }
  | { readonly id: number; readonly ok: false; readonly kind: 'corrupt' | 'internal'; readonly message: string }
  | { readonly id: number; readonly ok: false; readonly kind: 'stopped'; readonly why: 'cancelled' | 'timeout'; readonly message: string };

/** Indexes a host keeps open at once. */
const MAX_OPEN = 4;

export class QueryHost {
  /** `warm`: warm the replay code after opening a lazy index (the long-lived query worker). */
  constructor(private readonly warm = false) {}

  private readonly readers = new Map<string, IndexReader>();
  private readonly opening = new Map<string, Promise<IndexReader>>();

  /** Runs one query; never throws (failures are replies). */
  async run(req: QueryRequest, signal: AbortSignal | null = null): Promise<QueryReply> {
    const budget = new Budget(req.deadline, req.cancel ? new Int32Array(req.cancel) : null, req.method, signal);
    try {
      budget.check();
      return { id: req.id, ok: true, value: await this.dispatch(req, budget) };
    } catch (err) {
      if (err instanceof QueryStopped) return { id: req.id, ok: false, kind: 'stopped', why: err.why, message: err.message };
      // A damaged block, or a replayed page that differs from the index (the raw file changed):
      // main drops the index and rebuilds it.
      const corrupt = err instanceof IndexCorrupt ? err.message : req.index ? this.readers.get(req.index.sha)?.corruption ?? null : null;
      if (corrupt !== null) {
        if (req.index) await this.drop(req.index.sha);
        return { id: req.id, ok: false, kind: 'corrupt', message: corrupt };
      }
      if (err instanceof BridgeError) return { id: req.id, ok: false, kind: 'bridge', code: err.code, message: err.message };
      return { id: req.id, ok: false, kind: 'internal', message: err instanceof Error ? err.message : String(err) };
    }
  }

  private async dispatch(req: QueryRequest, budget: Budget): Promise<unknown> {
    const a = req.args;
    if (req.method === 'searchRaw') {
      const [path, size, range, query] = a as [string, number, readonly [number, number] | null, { mode: 'hex' | 'text'; pattern: string }];
      return searchRaw(path, size, range, query, budget);
    }
    if (!req.index) throw new Error(`${req.method} needs an index`);
    const r = await this.reader(req.index);
    if (r.corruption) throw new IndexCorrupt(r.corruption);
    switch (req.method) {
      case 'getSpans': {
        const [offset, length] = a as [number, number];
        return (await q.spansOverlapping(r, offset, offset + length, MAX_SPANS_PER_CALL, false, budget)).spans.map(publicSpan);
      }
      case 'findSpan': {
        const [from, dir, filter] = a as [number, 1 | -1, q.SpanFilter];
        const s = await q.findSpan(r, from, dir, filter, budget);
        return s ? publicSpan(s) : null;
      }
      case 'getMinimap':
        return q.getMinimap(r, a[0] as number);
      case 'getTextLines':
        return publicTextPage(await q.getTextLines(r, a[0] as number, a[1] as number));
      case 'textPositionOf':
        return q.textPositionOf(r, a[0] as number);
      case 'spanValues': {
        const [from, to, lo, hi] = a as [number, number, number, number];
        return q.spanValues(r, from, to, lo, hi, MAX_SPANS_PER_CALL, budget);
      }
      case 'getSecrets': {
        const [offset, length] = a as [number, number];
        return (await secretsInRaw(r, offset, offset + length, undefined, budget)).map(publicSecret);
      }
      case 'secretValues': {
        const [from, to, lo, hi] = a as [number, number, number, number];
        return secretValues(r, from, to, lo, hi, budget);
      }
      case 'payloads': {
        const [from, to, lo, hi] = a as [number, number, number, number];
        if (!req.index.expect.rawPath) throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?)');
        return decodedPayloads(r, req.index.expect.rawPath, from, to, lo, hi, budget);
      }
      case 'searchText': {
        const [query, caseSensitive] = a as [string, boolean];
        return searchText(r, query, caseSensitive, req.script ?? null, budget);
      }
      default:
        throw new Error(`unknown query ${String(req.method)}`);
    }
  }

  /** The open index of `sha` (opened once for a burst of queries), most recently used last. */
  private async reader(index: NonNullable<QueryRequest['index']>): Promise<IndexReader> {
    const open = this.readers.get(index.sha);
    if (open) {
      this.readers.delete(index.sha);
      this.readers.set(index.sha, open);
      return open;
    }
    let pending = this.opening.get(index.sha);
    if (!pending) {
      pending = this.openReader(index).finally(() => this.opening.delete(index.sha));
      this.opening.set(index.sha, pending);
    }
    return pending;
  }

  private async openReader(index: NonNullable<QueryRequest['index']>): Promise<IndexReader> {
    let r: IndexReader;
    try {
      r = await IndexReader.open(index.dir, index.expect);
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') throw new BridgeError('unavailable', 'this artifact has no index yet: call startIndex');
      throw err;
    }
    this.readers.set(index.sha, r);
    while (this.readers.size > MAX_OPEN) {
      const [old, reader] = this.readers.entries().next().value as [string, IndexReader];
      this.readers.delete(old);
      void reader.close();
    }
    // A lazy index replays its pages in this thread, and the first replays run cold code (a jump's
    // spans took 50-90 ms, warm 10-20): warm it once, right after the query that opened the index.
    const m = r.manifest;
    if (r.pages && this.warm) {
      setImmediate(() => warmReplay({ rawPath: index.expect.rawPath ?? '', sha256: m.sha256, sanitizer: m.sanitizer, sanitizerFingerprint: m.sanitizerFingerprint, pageBytes: m.pageBytes, maxLineBytes: m.maxLineBytes }));
    }
    return r;
  }

  /** Forgets the open index of `sha` (main rebuilt or dropped it). */
  async drop(sha: string): Promise<void> {
    const r = this.readers.get(sha);
    this.readers.delete(sha);
    await r?.close();
  }

  async close(): Promise<void> {
    const all = [...this.readers.values()];
    this.readers.clear();
    await Promise.all(all.map((r) => r.close()));
  }
}
