import { markerBytes, type Redaction } from './marker';

/**
 * The redactions of a text of `total` bytes as a head/tail window of it shows them: `at` moved to
 * the window's text, those in the left-out middle (or cut by a seam) dropped. `cut` null: the whole
 * text is shown.
 */
export function windowRedactions(list: readonly Redaction[], total: number, cut: { readonly head_bytes: number; readonly tail_bytes: number } | null): Redaction[] {
  if (cut === null) return [...list];
  const tailStart = total - cut.tail_bytes;
  const out: Redaction[] = [];
  for (const r of list) {
    const end = r.at + markerBytes(r.rule).length;
    if (end <= cut.head_bytes) out.push(r);
    else if (r.at >= tailStart && end <= total) out.push({ ...r, at: cut.head_bytes + (r.at - tailStart) });
  }
  return out;
}
