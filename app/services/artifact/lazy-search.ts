// Sanitized-text search over a lazy index (pages.ts): its text exists only as pages replayed from
// the raw bytes, so the search re-sanitizes the artifact. The pages are cut into contiguous ranges,
// one per worker thread (or run here one after the other, inline); each range's text is replayed by
// a bare Sanitizer (replay.ts replayText, its length checked page by page) and searched with an
// overlap, so a hit across any edge is found exactly once; only the pages a hit falls in are
// replayed in full, for the map that gives the hit's raw offset. The ranges' hits are joined in order.
import { workerTask } from './worker-task';
import { availableParallelism } from 'node:os';
import { MAX_SEARCH_HITS } from '../../../shared/bridge/limits';
import type { SearchHits } from '../../../shared/bridge/types';
import { Budget } from './budget';
import { concatF64, PageField, PageTable } from './pages';
import { replayPages, replayText, type ReplaySource } from './replay';
import type { IndexReader } from './reader';
import { compileMatch, foldAscii, hitLengthOf, matchSpan, matchStarts, textMatch, type TextMatch } from './search';
import { SecretCursor, type SecretColumnRef } from './secret-column';

/** One range's search (plain data). */
export interface RangeSearch {
  readonly src: Omit<ReplaySource, 'table'> & { readonly table: Float64Array };
  /** Pages `from`..`to` (inclusive): hits that start in their text. */
  readonly from: number;
  readonly to: number;
  readonly match: TextMatch;
  /** Hits to map to raw offsets at most (the rest are counted). */
  readonly maxHits: number;
  /** The secrets column: a hit that touches a suspected secret is neither listed nor counted. */
  readonly secrets: SecretColumnRef;
}

export interface RangeHits {
  /** Raw offsets of the first `maxHits` hits, ascending by text offset. */
  readonly hits: number[];
  readonly total: number;
}

/** Pages replayed at a time within a range: bounds memory (text and map of ~4 MiB of raw). */
const PIECE_PAGES = 32;
/** Below this many pages a search runs in this thread (starting threads costs more). */
const MIN_WORKER_PAGES = 64;

/** Searches one range of pages (in a worker thread or here). */
export function searchRange(task: RangeSearch, budget = Budget.none): RangeHits {
  const table = new PageTable(task.src.table, task.src.pageBytes);
  const src: ReplaySource = { ...task.src, table };
  const m = task.match;
  const matcher = compileMatch(m);
  const overlap = matchSpan(m) - 1;
  const textEnd = table.get(task.to + 1, PageField.Text);
  const hits: number[] = [];
  let total = 0;
  // The text carried from the piece before (its last `overlap` bytes) and where it starts.
  let carry: Buffer = Buffer.alloc(0);
  let carryAt = table.get(task.from, PageField.Text);
  const span = matchSpan(m);
  const secrets = new SecretCursor(task.secrets, carryAt);
  try {
    for (let p = task.from; p < table.pages;) {
      budget.check();
      // A piece ends before a page a replay can reach (so the next piece can start there): a stretch
      // of stored pages goes whole into one piece.
      let last = Math.min(table.pages - 1, p + PIECE_PAGES - 1);
      while (last + 1 < table.pages && table.get(last + 1, PageField.Restart) < 0) last++;
      const start = table.replayStart(p);
      const pages = (replayText(src, start, last) ?? replayPages(src, start, last, TEXT_ONLY).map((x) => x.text)).slice(p - start);
      // A fresh copy: folded in place for a folding match (the carry, folded before, folds the same).
      const text = Buffer.concat([carry, ...pages]);
      if (m.kind === 'bytes' && m.fold) foldAscii(text);
      const pieceEnd = carryAt + text.length;
      const final = pieceEnd - overlap >= textEnd || last === table.pages - 1;
      // Hits must start in this range's text (before textEnd); those in the last `overlap` bytes of a
      // piece that is not the last are the next piece's to find (its text begins with them).
      const limit = Math.min(final ? text.length : text.length - overlap, textEnd - carryAt);
      const found: number[] = [];
      matchStarts(matcher, text, limit, (i) => {
        if (secrets.touches(carryAt + i, carryAt + i + span)) return;
        if (++total <= task.maxHits) found.push(carryAt + i);
      });
      // Most pieces hold no hit: the map is replayed only for the pages that do.
      if (found.length > 0) hits.push(...mapToRaw(src, found));
      p = last + 1;
      if (final) break;
      const keep = Math.min(overlap, text.length);
      carry = text.subarray(text.length - keep);
      carryAt = pieceEnd - keep;
    }
  } finally {
    secrets.close();
  }
  return { hits, total };
}

const TEXT_ONLY = ['text.bin'] as const;
const MAP_ONLY = ['map.bin'] as const;

/** Raw offsets of text offsets `ts` (ascending): the map of the pages they fall in, replayed once. */
function mapToRaw(src: ReplaySource, ts: readonly number[]): number[] {
  const t = src.table;
  const first = t.pageAt(PageField.Text, ts[0]);
  const last = t.pageAt(PageField.Text, ts[ts.length - 1]);
  const start = t.replayStart(first);
  const pages = replayPages(src, start, last, MAP_ONLY).slice(first - start);
  const map = concatF64(pages.map((x) => new Float64Array(x.map.buffer.slice(x.map.byteOffset, x.map.byteOffset + x.map.byteLength))));
  const open = openSegment(t, last + 1);
  return ts.map((x) => rawOf(map, open, x));
}

/** The map segment open at the start of page `p` (or at the end), as a record, or null. */
function openSegment(t: PageTable, p: number): Float64Array | null {
  if (p >= t.pages || t.get(p, PageField.HasOpen) !== 1) return null;
  return Float64Array.of(t.get(p, PageField.OpenT), t.get(p, PageField.OpenR), t.get(p, PageField.OpenLen));
}

/** Raw offset of text byte `t` from map records (ascending text starts) and the segment still open after them. */
function rawOf(map: Float64Array, open: Float64Array | null, t: number): number {
  let lo = 0;
  let hi = map.length / 3;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (map[mid * 3] <= t) lo = mid + 1;
    else hi = mid;
  }
  let seg = lo > 0 ? map.subarray((lo - 1) * 3, lo * 3) : null;
  if (open && open[0] <= t && (!seg || open[0] >= seg[0])) seg = open;
  if (!seg) return -1;
  return seg[2] > 0 ? seg[1] + (t - seg[0]) : seg[1];
}

/**
 * Searches a lazy index's sanitized text: ranges of pages in parallel worker threads (`script`, the
 * index worker bundle), or here one after the other (`script` null, or a small artifact).
 * `ranges` (tests): cut into this many ranges whatever the machine.
 */
export async function searchTextLazy(r: IndexReader, query: string, caseSensitive: boolean, script: string | null, ranges?: number, budget = Budget.none): Promise<SearchHits> {
  const started = performance.now();
  const store = r.pages!;
  const table = store.table;
  const match = textMatch(query, caseSensitive);
  const hitLength = hitLengthOf(match, query);
  const src = { ...store.source, table: table.f };
  const n = ranges ?? (script && table.pages >= MIN_WORKER_PAGES ? Math.max(1, Math.min(4, availableParallelism())) : 1);
  const cuts = Array.from({ length: n + 1 }, (_, k) => Math.floor((k * table.pages) / n));
  const tasks: RangeSearch[] = [];
  for (let k = 0; k < n; k++) if (cuts[k + 1] > cuts[k]) tasks.push({ src, from: cuts[k], to: cuts[k + 1] - 1, match, maxHits: MAX_SEARCH_HITS, secrets: r.secretColumn });
  const results = n === 1 || !script ? tasks.map((t) => searchRange(t, budget)) : await Promise.all(tasks.map((t) => inWorker(script, t)));
  const hits: number[] = [];
  let total = 0;
  for (const x of results) {
    total += x.total;
    for (const h of x.hits) if (hits.length < MAX_SEARCH_HITS) hits.push(h);
  }
  return { hits, hitLength, total, complete: total <= MAX_SEARCH_HITS, elapsedMs: Math.round(performance.now() - started) };
}

function inWorker(script: string, task: RangeSearch): Promise<RangeHits> {
  const options = { workerData: { airlockTextSearch: task }, resourceLimits: { maxOldGenerationSizeMb: 512 } };
  return workerTask<RangeHits, { type: 'hits'; result: RangeHits } | { type: 'error'; message: string }>(script, options, 'text search worker', (m, end) => {
    if (m.type === 'hits') end.resolve(m.result);
    else end.reject(new Error(m.message));
  });
}
