import type { RemovalReport } from '../../../shared/sanitize';

/**
 * A removal report as a few readable lines. Every string comes from the report, whose keys and
 * values are Airlock's own (counts, fixed meaning tables, a hex digest), so the text is inert.
 */
export function formatReportSummary(report: RemovalReport): string[] {
  const lines = [
    `bytes: ${report.input_bytes} read, ${report.kept_bytes} kept as text, ${report.removed_bytes} removed or replaced; ${report.text_bytes} bytes of sanitized text`,
  ];
  if (report.sha256) lines.push(`sha256: ${report.sha256}`);
  const classes = Object.entries(report.classes).filter(([, c]) => c.count > 0);
  lines.push(classes.length === 0
    ? 'classes found: none (plain text)'
    : `classes found: ${classes.map(([name, c]) => `${name} ${c.count} (${c.bytes} B)`).join(', ')}`);
  const flags = [
    ['unterminated', report.unterminated], ['oversized', report.oversized], ['malformed', report.malformed],
    ['8-bit introduced', report.eight_bit], ['invalid UTF-8', report.invalid_utf8],
    ['stray C1 (raw 0x80-0x9F outside UTF-8)', report.stray_c1],
    ['tag characters', report.invisible.tag], ['bidi controls', report.invisible.bidi], ['bidi marks', report.invisible.bidi_mark],
    ['zero-width', report.invisible.zero_width], ['variation selectors', report.invisible.variation_selector],
    ['other invisible', report.invisible.other],
  ].filter(([, n]) => (n as number) > 0);
  if (flags.length > 0) lines.push(`anomalies: ${flags.map(([name, n]) => `${name} ${n}`).join(', ')}`);
  if (report.ambiguous.count > 0) {
    lines.push(`terminal readings disagree (text not every reading shows): ${report.ambiguous.count} stretches, ${report.ambiguous.bytes} B; text withheld: ${report.classes.withheld.bytes} B`);
  }
  if (report.withheld_to_end) lines.push(`withheld to end: nothing from raw byte ${report.withheld_from} on reached the text`);
  const lc = report.line_control;
  lines.push(`CR/BS (${report.cr_mode}): ${lc.cr_to_newline} CR to line break, ${lc.cr_dropped} CR dropped, ${lc.cr_applied} CR applied, ${lc.bs_dropped} BS dropped, ${lc.bs_applied} BS applied`);
  lines.push(`cursor moves: ${lc.move_to_newline} to line break, ${lc.move_to_space} to space, ${lc.move_dropped} merged, ${lc.move_applied} applied, ${lc.erase_applied} erases applied, ${lc.cells_withheld} cells withheld`);
  if (report.truncated) lines.push('truncated: input was cut at the byte cap');
  const meanings = Object.entries(report.meanings).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (meanings.length > 0) {
    lines.push('by meaning:');
    for (const [meaning, n] of meanings) lines.push(`  ${String(n).padStart(8)}  ${meaning}`);
  }
  return lines;
}
