import type { ExtractView } from '../../../shared/bridge/types';
import { gutterRows } from '../../terminal/gutter';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { statusFields, type StoredRequest } from '../../services/requests';

/** `0x10:0x20 (16 bytes)`, or `the whole artifact`. */
export function rangeText(range: readonly [number, number] | null): string {
  if (!range) return 'the whole artifact';
  return `0x${range[0].toString(16)}:0x${range[1].toString(16)} (${range[1] - range[0]} bytes)`;
}

/** What `request status --json` prints: id and state, and once approved the extract. */
export function statusJson(r: StoredRequest): Record<string, unknown> {
  return {
    ...statusFields(r),
    note: r.decision?.note ?? null,
    ...(r.state === 'approved' && r.extract ? { extract: r.extract, extract_sha256: r.extract_sha256 } : {}),
  };
}

/**
 * A request as Airlock's own lines for a terminal: every caller-given string (the reason, the
 * search term, a note) escaped to one line; the reason also behind the `| ` gutter, since it is
 * untrusted text a requester wrote.
 */
export function describeRequest(r: StoredRequest, columns: number): string[] {
  const lines = [
    `request ${r.id}: ${r.state}`,
    `  artifact  ${r.artifact} (${r.size} bytes)`,
    `  kind      ${r.kind}, ${rangeText(r.range)}${r.expect ? `, expect sha256 ${r.expect}` : ''}${r.search !== null ? `, search "${terminalSafeLine(r.search)}"` : ''}`,
    `  asked by  ${r.requester.user}@${r.requester.host} via ${r.requester.via} at ${r.created_at}`,
    r.state === 'pending' ? `  expires   ${r.expires_at}` : `  ${r.state === 'expired' ? 'expired' : 'decided'}   ${r.decision ? `${r.decision.at} by ${r.decision.by.user}@${r.decision.by.host} via ${r.decision.by.via}` : r.expires_at}`,
    '  reason (the requester\'s words):',
    ...gutterRows(`${r.reason}\n`, columns - 4).rows.map((row) => `    ${row}`),
  ];
  if (r.decision?.note) lines.push(`  note      ${terminalSafeLine(r.decision.note)}`);
  if (r.extract_pruned_at) lines.push(`  extract   removed with the raw bytes it came from at ${r.extract_pruned_at}: nothing is released`);
  return lines;
}

/** The extract for a terminal: hex rows as they are (inert notation), text behind the gutter. */
export function describeExtract(x: ExtractView, columns: number): string[] {
  switch (x.kind) {
    case 'hex-range':
      return [`extract: hex dump of ${rangeText(x.range)}`, ...x.rows];
    case 'digest':
      return [
        `extract: sha256 of ${rangeText(x.range)} (${x.bytes} bytes)`,
        `  sha256    ${x.sha256}`,
        ...(x.expect ? [`  expected  ${x.expect}: ${x.match ? 'match' : 'NO match'}`] : []),
      ];
    case 'text': {
      const c = Object.entries(x.removed.classes).map(([k, n]) => `${k} ${n}`).join(', ');
      const out = [`extract: sanitized text of ${rangeText(x.range)}; removed ${x.removed.spans} spans, ${x.removed.bytes} bytes${c ? ` (${c})` : ''}${x.textTruncated ? '; text cut short' : ''}`];
      out.push(...gutterRows(x.text.endsWith('\n') || x.text === '' ? x.text : `${x.text}\n`, columns).rows);
      if (x.search) {
        out.push(`search "${terminalSafeLine(x.search.term)}": ${x.search.total} hit(s)${x.search.total > x.search.hits.length ? `, first ${x.search.hits.length} listed` : ''}`);
        for (const h of x.search.hits) out.push(`  at ${h.offset} (line ${h.line}): ${h.context}`);
      }
      return out;
    }
  }
}
