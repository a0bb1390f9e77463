import type { ExtractView } from '../../../shared/bridge/types';
import { wrapLine } from '../../terminal/fit';
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

/** Continuation of one of Airlock's own lines cut to the terminal: no requester text starts a row with it. */
export const REQUEST_CONTINUATION = '    + ';

/**
 * A request as rows for a terminal of `columns` columns. Every row fits: Airlock's own lines are
 * cut with {@link REQUEST_CONTINUATION}, and every string a requester (or a decider's note) chose —
 * reason, search term, note — stands on rows of its own behind the `| ` gutter, escaped, so none
 * can start a row that reads like one of Airlock's fields (`  note  pre-approved by security`).
 */
export function describeRequest(r: StoredRequest, columns: number): string[] {
  const who = (p: StoredRequest['requester']): string => terminalSafeLine(`${p.user}@${p.host} via ${p.via}`);
  const own = [
    `request ${r.id}: ${r.state}`,
    `  artifact  ${r.artifact} (${r.size} bytes)`,
    `  kind      ${r.kind}, ${rangeText(r.range)}${r.expect ? `, expect sha256 ${r.expect}` : ''}`,
    `  asked by  ${who(r.requester)} at ${r.created_at}`,
    r.state === 'pending' ? `  expires   ${r.expires_at}` : `  ${r.state === 'expired' ? 'expired' : 'decided'}   ${r.decision ? `${r.decision.at} by ${who(r.decision.by)}` : r.expires_at}`,
  ];
  const lines = own.flatMap((line) => wrapLine(line, columns, REQUEST_CONTINUATION));
  const words = (title: string, text: string): void => {
    lines.push(...wrapLine(title, columns, REQUEST_CONTINUATION));
    lines.push(...gutterRows(`${text}\n`, columns - 4).rows.map((row) => `    ${row}`));
  };
  if (r.search !== null) words('  search (the requester\'s words):', r.search);
  words('  reason (the requester\'s words):', r.reason);
  if (r.decision?.note) words('  note (the decider\'s words):', r.decision.note);
  if (r.extract_pruned_at) lines.push(...wrapLine(`  extract   removed with the raw bytes it came from at ${r.extract_pruned_at}: nothing is released`, columns, REQUEST_CONTINUATION));
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
