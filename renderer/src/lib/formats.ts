// Copy and export texts. Every one is built from notation (hex digits, caret cells, numbers) or
// from sanitized text, never from raw bytes, and is checked inert before it leaves.
import { caretString } from '../../../shared/hex/text';
import { markerText } from '../../../shared/redact/marker';
import { rankMeanings } from '../../../shared/parser/danger';
import type { Bookmark, RemovalReport, SpanInfo, TextLine } from '../../../shared/bridge/types';
import { assertInert } from './inert';
import { chipLabel, hexOffset } from './spans';

export function hexText(bytes: Uint8Array): string {
  return assertInert(Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' '));
}

export function caretText(bytes: Uint8Array): string {
  return assertInert(caretString(bytes));
}

export function cArrayText(bytes: Uint8Array, offset: number, name = 'bytes'): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 12) {
    lines.push('  ' + Array.from(bytes.subarray(i, i + 12), (b) => `0x${b.toString(16).padStart(2, '0')}`).join(', ') + (i + 12 < bytes.length ? ',' : ''));
  }
  return assertInert(`/* offset 0x${hexOffset(offset)}, ${bytes.length} bytes */\nconst unsigned char ${name}[${bytes.length}] = {\n${lines.join('\n')}\n};\n`);
}

/**
 * The sanitized text of lines, chips written as `⟦OSC hyperlink⟧` marks (export only; the app draws
 * chips). A suspected secret is always its capture marker `⟦redacted:RULE⟧` (the text never holds
 * its value; a secret over several lines is written once, on its first).
 */
export function linesText(lines: readonly TextLine[], withChips: boolean): string {
  return assertInert(lines.map((l) => l.pieces.map((p) => {
    if (p.t === 'text') return p.text;
    if (p.t === 'synthetic') return '';
    if (p.t === 'secret') return p.continued ? '' : markerText(p.secret.rule);
    if (!withChips) return '';
    const c = chipLabel(p.span);
    return `⟦${c.cls} ${c.what}⟧`;
  }).join('')).join('\n'));
}

export function reportJson(report: RemovalReport, ref: string): string {
  return assertInert(JSON.stringify({ artifact: ref, report }, null, 2) + '\n');
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function reportMarkdown(report: RemovalReport, ref: string, title: string): string {
  const out: string[] = [];
  out.push(`# Removal report: ${mdCell(title)}`, '', `- Artifact: \`${ref}\``, `- Input: ${report.input_bytes} bytes; kept ${report.kept_bytes}; removed or replaced ${report.removed_bytes}`,
    `- Removed spans: ${report.removed_spans}; unterminated ${report.unterminated}; oversized ${report.oversized}; malformed ${report.malformed}; 8-bit ${report.eight_bit}`,
    `- Ambiguous stretches (not every terminal reading shows this): ${report.ambiguous?.count ?? 0}, ${report.ambiguous?.bytes ?? 0} bytes${report.withheld_to_end ? `; text withheld to end of input from raw offset ${report.withheld_from ?? 0}` : ''}`,
    `- CR mode: ${report.cr_mode}${report.truncated ? '; input truncated' : ''}`, '', '## By class', '', '| Class | Count | Bytes |', '|---|---:|---:|');
  for (const [name, c] of Object.entries(report.classes)) if (c.count > 0) out.push(`| ${name} | ${c.count} | ${c.bytes} |`);
  out.push('', '## By meaning, most dangerous first', '', '| Class: meaning | Count |', '|---|---:|');
  for (const { key, count } of rankMeanings(report.meanings)) out.push(`| ${mdCell(key)} | ${count} |`);
  return assertInert(out.join('\n') + '\n');
}

export function bookmarksMarkdown(bookmarks: readonly Bookmark[], ref: string): string {
  const out = ['# Bookmarks', '', `Artifact: \`${ref}\``, '', '| Offset | Length | Note |', '|---|---:|---|'];
  for (const b of bookmarks) out.push(`| 0x${hexOffset(b.offset)} | ${b.length} | ${mdCell(b.note)} |`);
  return assertInert(out.join('\n') + '\n');
}

/** Removal counts of one line: `2 CSI, 1 OSC`. */
export function lineRemovalSummary(line: TextLine): string {
  const counts = new Map<string, number>();
  for (const p of line.pieces) if (p.t === 'chip') {
    const c = chipLabel(p.span).cls;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return [...counts].map(([c, n]) => `${n} ${c}`).join(', ');
}

/** The comparison as Markdown: each clean line, the raw range it came from (caret notation when granted) and what was removed. */
export function compareMarkdown(lines: readonly TextLine[], rangeOf: (line: TextLine) => readonly [number, number], rawOf: (line: TextLine) => Uint8Array | null, ref: string, title: string): string {
  const out = [`# Raw vs clean: ${mdCell(title)}`, '', `Artifact: \`${ref}\``, '', '| Line | Raw range | Removed | Clean text | Raw (caret notation) |', '|---:|---|---|---|---|'];
  for (const l of lines) {
    const raw = rawOf(l);
    const [start, end] = rangeOf(l);
    const clean = linesText([l], false);
    const caret = raw ? caretString(raw) : '(raw not authorized)';
    out.push(`| ${l.line + 1} | 0x${hexOffset(start)}–0x${hexOffset(end)} | ${lineRemovalSummary(l) || '—'} | \`${mdCell(clean).replace(/`/g, "'")}\` | \`${mdCell(caret).replace(/`/g, "'")}\` |`);
  }
  return assertInert(out.join('\n') + '\n');
}

/** UTF-8 length of the code point `cp`. */
function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** The characters of `text` (whose UTF-8 bytes are raw `[raw, …)`) that have a byte in `[start, end)`. */
function cutDirect(text: string, raw: number, start: number, end: number): string {
  let out = '';
  let at = raw;
  for (const ch of text) {
    const n = utf8Length(ch.codePointAt(0)!);
    if (at < end && at + n > start) out += ch;
    at += n;
  }
  return out;
}

/**
 * The sanitized text of raw bytes `[start, end)` over `lines` (those the bytes map to): kept text
 * cut at the range's ends (exactly where its bytes map one to one; a replaced piece counts whole),
 * one line per text line (a long line's continuation joins its line), each line's own LF dropped,
 * no chip labels. `removed`: the removed spans the range holds. Checked inert.
 */
export function selectedText(lines: readonly TextLine[], start: number, end: number): { text: string; removed: SpanInfo[] } {
  const removed: SpanInfo[] = [];
  const parts: Array<{ text: string; continued: boolean }> = [];
  for (const l of lines) {
    let t = '';
    for (const p of l.pieces) {
      if (p.t === 'chip') {
        if (p.span.offset < end && p.span.offset + p.span.length > start) removed.push(p.span);
        continue;
      }
      if (p.t === 'secret') {
        if (!p.continued && p.secret.offset < end && p.secret.offset + p.secret.length > start) t += markerText(p.secret.rule);
        continue;
      }
      const ps = p.raw;
      const pe = p.raw + Math.max(1, p.rawLength);
      if (ps >= end || pe <= start) continue;
      // A line break the sanitizer made ends the line (the join adds it); a space it made is text.
      if (p.t === 'synthetic') t += p.text === ' ' ? ' ' : '';
      else t += p.direct ? cutDirect(p.text, p.raw, start, end) : p.text;
    }
    parts.push({ text: t.endsWith('\n') ? t.slice(0, -1) : t, continued: l.continued });
  }
  // Lines before the first and after the last with text add nothing.
  let first = 0;
  let last = parts.length - 1;
  while (first <= last && parts[first].text === '') first++;
  while (last >= first && parts[last].text === '') last--;
  let text = '';
  for (let i = first; i <= last; i++) text += (i > first && !parts[i].continued ? '\n' : '') + parts[i].text;
  return { text: assertInert(text), removed };
}
