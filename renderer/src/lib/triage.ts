// The vault browser's triage: which records a filter keeps, in which order, and how a record's
// streams are shown (an empty stream is a note in its record's row, not a row of its own).
import type { ArtifactSummary, RecordSummary } from '../../../shared/bridge/types';
import { DANGER_ORDER, dangerCounts, dangerRank, type DangerCategory } from '../../../shared/parser/danger';

export type TimeWindow = 'any' | 'hour' | 'day' | 'week' | 'month';
export type SortOrder = 'newest' | 'danger';

export interface TriageFilter {
  /** Words that must all occur in the command or file name, directory, record id, stream or digest. */
  readonly text: string;
  /** Keep records with a span of any of these categories (none: every record). */
  readonly categories: ReadonlySet<DangerCategory>;
  readonly time: TimeWindow;
  readonly sort: SortOrder;
}

export const TIME_WINDOWS: ReadonlyArray<[TimeWindow, string, number]> = [
  ['any', 'Any time', Infinity], ['hour', 'Last hour', 3_600_000], ['day', 'Last 24 hours', 86_400_000],
  ['week', 'Last 7 days', 7 * 86_400_000], ['month', 'Last 30 days', 30 * 86_400_000],
];

export const EMPTY_FILTER: TriageFilter = { text: '', categories: new Set(), time: 'any', sort: 'newest' };

/** Spans per danger category of one artifact (from main's summary; older mains: from its top keys). */
export function artifactDanger(a: ArtifactSummary): Partial<Record<DangerCategory, number>> {
  if (a.removal.danger) return a.removal.danger;
  return dangerCounts(Object.fromEntries(a.removal.top.map((t) => [t.key, t.count])));
}

/** Spans per danger category over a record's streams, in danger order. */
export function recordDanger(r: RecordSummary): Array<[DangerCategory, number]> {
  const sum = new Map<DangerCategory, number>();
  for (const a of r.artifacts) for (const [c, n] of Object.entries(artifactDanger(a)) as Array<[DangerCategory, number]>) sum.set(c, (sum.get(c) ?? 0) + n);
  return DANGER_ORDER.filter((c) => sum.has(c)).map((c) => [c, sum.get(c)!]);
}

/** A record as the browser shows it: rows for its streams with bytes; empty streams named in the record's row. */
export interface RecordGroup {
  readonly record: RecordSummary;
  readonly rows: readonly ArtifactSummary[];
  readonly empty: readonly ArtifactSummary[];
}

export function groupOf(record: RecordSummary): RecordGroup {
  const rows = record.artifacts.filter((a) => a.size > 0);
  const empty = record.artifacts.filter((a) => a.size === 0);
  // A record whose every stream is empty keeps one row, so it can still be opened and seen.
  if (rows.length === 0 && empty.length > 0) return { record, rows: [empty[0]], empty: empty.slice(1) };
  return { record, rows, empty };
}

function haystack(r: RecordSummary): string {
  return [r.title, r.cwd ?? '', r.id, r.source, ...r.artifacts.flatMap((a) => [a.stream, a.sha256])].join('\n').toLowerCase();
}

/** The records `filter` keeps, in its order, grouped. `now` is ms since the epoch. */
export function triage(records: readonly RecordSummary[], filter: TriageFilter, now: number): RecordGroup[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const window = TIME_WINDOWS.find(([t]) => t === filter.time)?.[2] ?? Infinity;
  const kept = records.filter((r) => {
    if (words.length > 0) {
      const hay = haystack(r);
      if (!words.every((w) => hay.includes(w))) return false;
    }
    if (window !== Infinity) {
      const t = Date.parse(r.createdAt);
      if (!Number.isFinite(t) || now - t > window) return false;
    }
    if (filter.categories.size > 0 && !recordDanger(r).some(([c]) => filter.categories.has(c))) return false;
    return true;
  });
  const time = (r: RecordSummary) => {
    const t = Date.parse(r.createdAt);
    return Number.isFinite(t) ? t : 0;
  };
  const sorted = [...kept];
  if (filter.sort === 'danger') {
    // Most dangerous category first, then how many spans of it, then newest.
    const key = new Map(sorted.map((r) => [r, recordDanger(r)[0] ?? null]));
    sorted.sort((a, b) => {
      const ka = key.get(a);
      const kb = key.get(b);
      const ra = ka ? dangerRank(ka[0]) : DANGER_ORDER.length;
      const rb = kb ? dangerRank(kb[0]) : DANGER_ORDER.length;
      return ra - rb || (kb?.[1] ?? 0) - (ka?.[1] ?? 0) || time(b) - time(a);
    });
  } else {
    sorted.sort((a, b) => time(b) - time(a));
  }
  return sorted.map(groupOf);
}

/** Categories that occur in the vault, with how many records hold each, in danger order. */
export function vaultCategories(records: readonly RecordSummary[]): Array<[DangerCategory, number]> {
  const n = new Map<DangerCategory, number>();
  for (const r of records) for (const [c] of recordDanger(r)) n.set(c, (n.get(c) ?? 0) + 1);
  return DANGER_ORDER.filter((c) => n.has(c)).map((c) => [c, n.get(c)!]);
}
