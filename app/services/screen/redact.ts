// The screen view as the viewer shows it without a grant: its text (the last screen's rows and the
// hidden text of each finding) through the capture's redaction stage with the vault's policy, as
// the MCP `screen` tool redacts its findings and the text view serves secrets as redactions. A
// secret shows as its marker `⟦redacted:RULE⟧`; offsets and counts are the engine's, unchanged.
import type { ScreenStatus, ScreenView } from '../../../shared/bridge/types';
import { markerText, type RedactionPolicy } from '../../../shared/redact';
import { redactText } from '../../redact/text';

/** A suspected secret's raw extent, rule and value (the artifact index's secrets column; main only). */
export interface SecretExtent {
  readonly offset: number;
  readonly length: number;
  readonly rule: string;
  /** Its value as the text holds it (absent: the extent alone is known). */
  readonly value?: string;
}

/** Characters of a secret's value that, found in a screen text, are taken for a piece of it. */
export const FRAGMENT_CHARS = 6;

/**
 * `view` with every text redacted under `policy`. Rows: redacted as one text (joined by LF, which
 * they cannot hold), and each pair of neighbours joined without the break, so a secret wrapped
 * from one row onto the next is found too (both rows then show its marker). Findings: their text
 * is redacted, and a finding whose raw bytes overlap a secret the index found (`secrets`, sorted
 * by offset) shows only its marker: a finding may hold just a fragment no rule matches alone.
 * And wherever a row or a finding holds FRAGMENT_CHARS characters of a known secret's value in a
 * row (the rest erased, overwritten or cut by the screen's edge), that stretch is a marker too.
 */
export function redactScreenView(view: ScreenView, policy: RedactionPolicy, secrets: readonly SecretExtent[] = []): ScreenView {
  const pieces = fragmentsOf(secrets);
  const rows = redactText(view.screen.join('\n'), policy).text.split('\n').map((r) => redactFragments(r, pieces));
  const screen = rows.length === view.screen.length ? rows : view.screen.map(() => '');
  for (let i = 0; i + 1 < view.screen.length; i++) {
    const a = view.screen[i];
    const r = redactText(a + view.screen[i + 1], policy);
    const cut = Buffer.byteLength(a, 'utf8');
    const across = r.redactions.find((x) => x.offset < cut && x.offset + x.length > cut);
    if (across) screen[i] = screen[i + 1] = markerText(across.rule);
  }
  return {
    ...view,
    screen,
    findings: view.findings.map((f) => {
      const s = overlapping(secrets, f.offset, f.offset + f.length);
      return { ...f, text: s ? markerText(s.rule) : redactFragments(redactText(f.text, policy).text, pieces) };
    }),
  };
}

/** A status with its view, if any, redacted (see {@link redactScreenView}). */
export function redactScreenStatus(status: ScreenStatus, policy: RedactionPolicy, secrets: readonly SecretExtent[] = []): ScreenStatus {
  return status.view ? { ...status, view: redactScreenView(status.view, policy, secrets) } : status;
}

/** A secret of `list` (sorted by offset, not overlapping) that overlaps `[a, b)`, or undefined. */
function overlapping(list: readonly SecretExtent[], a: number, b: number): SecretExtent | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].offset + list[mid].length <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length && list[lo].offset < b ? list[lo] : undefined;
}

/** Every FRAGMENT_CHARS-character piece of the secrets' values, with its rule. */
function fragmentsOf(secrets: readonly SecretExtent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of secrets) {
    if (!s.value) continue;
    const v = [...s.value];
    const k = Math.min(FRAGMENT_CHARS, v.length);
    for (let i = 0; i + k <= v.length; i++) out.set(v.slice(i, i + k).join(''), s.rule);
  }
  return out;
}

/** `text` with every stretch made of pieces of a known secret's value replaced by its marker. */
function redactFragments(text: string, pieces: ReadonlyMap<string, string>): string {
  if (pieces.size === 0) return text;
  const chars = [...text];
  const rule: (string | null)[] = chars.map(() => null);
  let any = false;
  for (const k of new Set([...pieces.keys()].map((p) => [...p].length))) {
    for (let i = 0; i + k <= chars.length; i++) {
      const r = pieces.get(chars.slice(i, i + k).join(''));
      if (r === undefined) continue;
      any = true;
      for (let j = i; j < i + k; j++) rule[j] = r;
    }
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    if (rule[i] === null) out += chars[i];
    else if (i === 0 || rule[i - 1] !== rule[i]) out += markerText(rule[i]!);
  }
  return out;
}
