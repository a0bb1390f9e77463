import type { RemovalReport } from '../../shared/sanitize';
import { binarySize } from '../../shared/size';
import { TEXT_GUTTER } from '../terminal/gutter';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { STREAMS } from './chunk-log';
import { shellQuote } from '../terminal/shell-quote';
import type { CaptureEnvelope } from './envelope';
import type { TextTruncation } from './text-window';

export { TEXT_GUTTER };

/**
 * How a row that continues one of Airlock's own lines begins. Captured rows begin with the
 * gutter and Airlock's lines with `airlock: ` or `--- `, so a wrapped command line or path can
 * never start a row that passes for either.
 */
export const CONTINUATION = 'airlock:+ ';

/**
 * Airlock's own lines about a finished capture (what `airlock capture` prints after the live
 * rows, app/capture/live-rows.ts): a one-line summary, where the record and raw bytes are, the
 * sandbox, redactions, and notes on a stop or truncation. Each passes terminalSafeLine; the
 * caller cuts them to a terminal's width.
 */
export function summaryLines(env: CaptureEnvelope): string[] {
  const lines: string[] = [summaryLine(env)];
  lines.push(`airlock: record ${terminalSafeLine(env.record)}; cwd ${terminalSafeLine(shellQuote(env.cwd))}`);
  lines.push(`airlock: raw stdout ${env.raw_artifacts.stdout}`);
  lines.push(`airlock: raw stderr ${env.raw_artifacts.stderr}`);
  lines.push(`airlock: sandbox ${env.sandbox.used}: ${terminalSafeLine(env.sandbox.reason)}`);
  lines.push(`airlock: network ${env.sandbox.network.used}: ${terminalSafeLine(env.sandbox.network.reason)}`);
  if (env.sandbox.hint) lines.push(`airlock: hint: ${terminalSafeLine(env.sandbox.hint)}`);
  lines.push(`airlock: redacted: ${redactedSummary(env.redaction)}`);
  if (env.termination) {
    const why = {
      'max-bytes': `output reached --max-bytes ${formatBytes(env.limits.max_bytes)}`,
      timeout: `--timeout ${env.limits.timeout_ms} ms elapsed`,
      interrupted: 'airlock was interrupted',
      'pipes-held-open': 'the command exited but something it started kept its output open',
      'left-running': 'the command exited but left processes of its group running',
      'capture-failed': 'the capture failed',
    }[env.termination.reason];
    const signals = env.termination.signals.length > 0 ? `sent ${env.termination.signals.join(' then ')} to its process group` : 'it had already ended';
    lines.push(`airlock: stopped the command: ${why}; ${signals}`);
  }
  if (env.truncated) lines.push('airlock: TRUNCATED: the captured bytes end before the command\'s output did');
  for (const stream of STREAMS) {
    const t = env.text_truncated[stream];
    if (t) lines.push(`airlock: ${stream} text shortened to --max-text: ${windowNote(t)}`);
    const w = env.withheld_to_end[stream];
    if (w) lines.push(`airlock: ${stream} text withheld from raw byte ${w.from} to the end (a control string was open, or terminals disagree)`);
  }
  return lines;
}

/**
 * "3 (github-token 2, jwt 1) as ⟦redacted:RULE⟧", "nothing", or with --redact off what was found
 * and left in. Rule ids come from a fixed table; counts only, never a value.
 */
export function redactedSummary(r: CaptureEnvelope['redaction']): string {
  const totals = new Map<string, number>();
  for (const s of [r.stdout, r.stderr]) for (const [rule, n] of Object.entries(s.rules)) totals.set(rule, (totals.get(rule) ?? 0) + n);
  const count = r.stdout.count + r.stderr.count;
  const byRule = [...totals].map(([rule, n]) => `${rule} ${n}`).join(', ');
  if (r.policy.mode === 'off') return count === 0 ? 'off (no secret found)' : `OFF: ${count} suspected secret(s) left in the text (${byRule})`;
  return count === 0 ? 'nothing' : `${count} (${byRule}) as ${r.policy.marker}`;
}

function summaryLine(env: CaptureEnvelope): string {
  const how = env.signal !== null ? `was killed by ${terminalSafeLine(env.signal)}` : `exited ${env.exit_code}`;
  const removed = removedSummary([env.sanitizer.stdout, env.sanitizer.stderr]);
  return (
    `airlock: ${shortCommand(env.command)} ${how} in ${formatMs(env.duration_ms)}; ` +
    `stdout ${formatBytes(env.bytes.stdout)}, stderr ${formatBytes(env.bytes.stderr)}; removed: ${removed}`
  );
}

/** The command for the one-line header: at most 120 characters, so the summary stays one line. */
function shortCommand(command: string): string {
  const safe = terminalSafeLine(command);
  return safe.length > 120 ? `${safe.slice(0, 119)}…` : safe;
}

/** "1 osc, 3 csi" over both reports, or "nothing". Class names come from a fixed table. */
export function removedSummary(reports: readonly RemovalReport[]): string {
  const totals = new Map<string, number>();
  for (const r of reports) {
    for (const [name, c] of Object.entries(r.classes)) if (c.count > 0) totals.set(name, (totals.get(name) ?? 0) + c.count);
  }
  if (totals.size === 0) return 'nothing';
  return [...totals].map(([name, n]) => `${n} ${name}`).join(', ');
}

/** The line that marks where head and tail of a shortened stream meet; Airlock's own, outside the text. */
export function seamLine(stream: string, cut: TextTruncation): string {
  const where = cut.at_line_boundaries === false ? ' (cut inside a line: the rows on either side are partial)' : '';
  return `airlock: ... ${formatBytes(cut.omitted_bytes)} of ${stream} text omitted here${where} ...`;
}

function windowNote(t: TextTruncation): string {
  return `first ${formatBytes(t.head_bytes)} and last ${formatBytes(t.tail_bytes)} kept, ${formatBytes(t.omitted_bytes)} between them omitted (the whole output is only in the restricted raw artifact)`;
}

/** 4 B, 1.5 KiB, 64.0 MiB. */
export function formatBytes(n: number): string {
  const { value, unit } = binarySize(n);
  return unit === 'B' ? `${n} B` : `${value.toFixed(1)} ${unit}`;
}

function formatMs(ms: number): string {
  return ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
