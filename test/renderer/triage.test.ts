// The vault browser's triage (lib/triage.ts): streams grouped per record, an empty stream named
// in its record instead of a row, filters by words, danger category and time, and the two orders.
import { describe, expect, it } from 'vitest';
import type { ArtifactSummary, RecordSummary } from '../../shared/bridge/types';
import { EMPTY_FILTER, groupOf, recordDanger, triage, vaultCategories } from '../../renderer/src/lib/triage';

const NOW = Date.parse('2026-12-07T12:00:00Z');
function artifact(stream: string, size: number, danger: ArtifactSummary['removal']['danger'] = {}): ArtifactSummary {
  const sha = (stream + size).padEnd(64, '0').replace(/[^0-9a-f]/g, 'a');
  return { ref: `restricted:sha256:${sha}`, sha256: sha, size, stream, rawAvailable: true, removal: { removedSpans: Object.values(danger).reduce((a, b) => a + (b ?? 0), 0), removedBytes: 0, top: [], truncated: false, withheldToEnd: false, ambiguous: 0, danger } };
}
function record(id: string, title: string, hoursAgo: number, artifacts: ArtifactSummary[]): RecordSummary {
  return { id, title, createdAt: new Date(NOW - hoursAgo * 3_600_000).toISOString(), source: 'capture', cwd: '/src/app', exitCode: 0, signal: null, durationMs: 1, rebuilt: false, artifacts };
}
const records = [
  record('r-build', 'npm run build', 1, [artifact('stdout', 6000, { clipboard: 1, colour: 600 }), artifact('stderr', 0)]),
  record('r-test', 'npm test', 3, [artifact('stdout', 100, { colour: 4000, screen: 3 }), artifact('stderr', 40, { hyperlink: 2 })]),
  record('r-old', 'deploy.sh', 24 * 40, [artifact('stdout', 10, { title: 1 })]),
  record('r-quiet', 'true', 2, [artifact('stdout', 0), artifact('stderr', 0)]),
];

describe('triage', () => {
  it('groups a record\'s streams; an empty stream is named in its record, not a row', () => {
    const g = groupOf(records[0]);
    expect(g.rows.map((a) => a.stream)).toEqual(['stdout']);
    expect(g.empty.map((a) => a.stream)).toEqual(['stderr']);
    // All empty: one row stays, so the record can still be opened.
    const q = groupOf(records[3]);
    expect(q.rows.map((a) => a.stream)).toEqual(['stdout']);
    expect(q.empty.map((a) => a.stream)).toEqual(['stderr']);
  });

  it('filters by words (all must match), by danger category, and by time', () => {
    expect(triage(records, { ...EMPTY_FILTER, text: 'npm' }, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-test']);
    expect(triage(records, { ...EMPTY_FILTER, text: 'npm build' }, NOW).map((g) => g.record.id)).toEqual(['r-build']);
    expect(triage(records, { ...EMPTY_FILTER, text: 'STDERR /src' }, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-quiet', 'r-test']);
    expect(triage(records, { ...EMPTY_FILTER, categories: new Set(['clipboard', 'title']) }, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-old']);
    expect(triage(records, { ...EMPTY_FILTER, time: 'day' }, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-quiet', 'r-test']);
    expect(triage(records, { ...EMPTY_FILTER, time: 'hour' }, NOW).map((g) => g.record.id)).toEqual(['r-build']);
  });

  it('orders newest first, or most dangerous first (then count, then newest)', () => {
    expect(triage(records, EMPTY_FILTER, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-quiet', 'r-test', 'r-old']);
    expect(triage(records, { ...EMPTY_FILTER, sort: 'danger' }, NOW).map((g) => g.record.id)).toEqual(['r-build', 'r-test', 'r-old', 'r-quiet']);
  });

  it('ranks a record\'s categories by danger and counts the vault\'s records per category', () => {
    expect(recordDanger(records[1])).toEqual([['hyperlink', 2], ['screen', 3], ['colour', 4000]]);
    expect(vaultCategories(records)).toEqual([['clipboard', 1], ['hyperlink', 1], ['title', 1], ['screen', 1], ['colour', 2]]);
  });
});
