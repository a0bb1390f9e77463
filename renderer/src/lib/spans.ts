// How spans are named and coloured: one place, so the legend, chips, rows and tooltips agree.
import type { SpanInfo } from '../../../shared/bridge/types';
import { SPAN_CLASS_NAMES, SpanFlag } from '../../../shared/parser/span-class';
import { binarySize } from '../../../shared/size';

/** Short labels per class value, as an investigator reads them. */
export const CLASS_LABELS: readonly string[] = ['C0', 'C1', 'ESC', 'CSI', 'OSC', 'DCS', 'APC', 'PM', 'SOS', 'Invalid UTF-8', 'Invisible', 'Withheld'];
/** What each class is, for the legend. */
export const CLASS_HINTS: readonly string[] = [
  'C0 control or DEL', 'C1 control (8-bit or UTF-8 encoded)', 'escape sequence', 'control sequence (colour, cursor, erase…)',
  'OS command: title, clipboard, hyperlink…', 'device control string', 'application program command', 'privacy message',
  'start of string', 'ill-formed UTF-8 (shown as U+FFFD)', 'invisible code point (tags, bidi)',
  'text one reading shows, withheld (not every terminal reading shows this)',
];
/** Class values the legend, minimap and tints know (one CSS colour `--cN` each). */
export const CLASS_COUNT = CLASS_LABELS.length;
export const WITHHELD_CLASS = 11;
export const INVALID_UTF8_CLASS = 9;

/** CSS class for a span class value (`cls-osc`, `cls-invalid_utf8`…). */
export function clsCss(cls: number): string {
  return `cls-${SPAN_CLASS_NAMES[cls] ?? 'unknown'}`;
}

export function classLabel(cls: number): string {
  return CLASS_LABELS[cls] ?? `class ${cls}`;
}

const FLAG_NAMES: Array<[number, string]> = [
  [SpanFlag.Unterminated, 'unterminated'], [SpanFlag.Oversized, 'oversized'], [SpanFlag.Malformed, 'malformed'],
  [SpanFlag.EightBit, '8-bit introducer'], [SpanFlag.Utf8Encoded, 'UTF-8 encoded C1'],
  [SpanFlag.Stray, 'stray C1 byte (invalid UTF-8 to a UTF-8 terminal)'],
];

export function flagNames(flags: number): string[] {
  return FLAG_NAMES.filter(([bit]) => (flags & bit) !== 0).map(([, name]) => name);
}

/** The meaning without a leading mnemonic that repeats the class or code ("OSC 52 clipboard" → "clipboard"). */
function meaningText(span: SpanInfo): string {
  return span.meaning;
}

/** 1234567 → "1,234,567" without Intl (toLocaleString is slow on hot paths). */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A count and its noun: `1 byte`, `1,024 bytes`, `7 streams`. */
export function counted(n: number, noun: string): string {
  return `${grouped(n)} ${noun}${n === 1 ? '' : 's'}`;
}

const described = new WeakMap<SpanInfo, string>();

/** "OSC 52 clipboard access, 44 bytes, ended by BEL · unterminated" (cached per span object). */
export function describeSpan(span: SpanInfo): string {
  let d = described.get(span);
  if (d === undefined) {
    d = describe(span);
    described.set(span, d);
  }
  return d;
}

/** A stray C1 byte's meaning as an investigator reads it: "invalid UTF-8 — an 8-bit terminal reads C1 IND index". */
function strayHead(m: string): string | null {
  const at = /^invalid UTF-8 \(8-bit terminal: (.+)\)$/.exec(m);
  return at ? `invalid UTF-8 — an 8-bit terminal reads C1 ${at[1]}` : null;
}

/** The span's class and meaning, once: "OSC 52 clipboard access", "CSI SGR select graphic rendition". */
export function spanHead(span: SpanInfo): string {
  const label = classLabel(span.cls);
  const m = meaningText(span);
  return m.toUpperCase().startsWith(label.toUpperCase()) ? m : `${label} ${m}`;
}

function describe(span: SpanInfo): string {
  const m = meaningText(span);
  const bytes = counted(span.length, 'byte');
  if (span.cls === WITHHELD_CLASS) {
    return `Withheld: text one reading shows, withheld (not every terminal reading shows this), ${bytes}`;
  }
  const stray = span.cls === INVALID_UTF8_CLASS && (span.flags & SpanFlag.Stray) !== 0 ? strayHead(m) : null;
  if (stray !== null) return `${stray}, ${bytes}`;
  const head = spanHead(span);
  const t = span.terminator;
  const ended = t && t !== 'final' ? (t === 'EOF' ? ', unterminated at end of input' : t === 'interrupted' ? ', interrupted' : `, ended by ${t}`) : '';
  const flags = flagNames(span.flags);
  return `${head}, ${bytes}${ended}${flags.length ? ` · ${flags.join(', ')}` : ''}`;
}

/** Short names of the invisible kinds (the meanings parser/meaning.ts gives them). */
const INVISIBLE_SHORT: Record<string, string> = {
  'tag character (ASCII smuggling)': 'tag character', 'bidi isolate control': 'bidi isolate', 'bidi pop directional formatting': 'bidi pop',
  'bidi embedding/override control': 'bidi override', 'bidi mark (LRM/RLM/ALM)': 'bidi mark', 'joiner (ZWNJ/ZWJ) outside a sequence that needs it': 'joiner',
  'zero-width character': 'zero-width', 'variation selector outside a sequence that takes it': 'variation selector', 'Hangul filler': 'Hangul filler',
  'soft hyphen': 'soft hyphen', 'default-ignorable code point': 'ignorable',
};

const OSC_SHORT: Record<number, string> = {
  0: 'title', 1: 'icon', 2: 'title', 4: 'palette', 7: 'cwd', 8: 'hyperlink', 9: 'notify', 10: 'fg colour', 11: 'bg colour',
  12: 'cursor colour', 52: 'clipboard', 104: 'palette', 133: 'shell mark', 633: 'shell mark', 777: 'notify', 1337: 'iTerm2',
};
const STOP = new Set(['set', 'select', 'request', 'the', 'and']);

/**
 * The short chip label: class and a mnemonic ("CSI SGR", "OSC 52 clipboard", "C0 CR"); the full
 * description goes to the tooltip and the accessible name. `code` is the span's value (its code
 * point or byte), known only under a grant (getSpanValues): without it an invisible character
 * says what kind it is ("tag character") and invalid UTF-8 how many bytes, never which.
 */
export function chipLabel(span: SpanInfo, code?: number): { cls: string; what: string } {
  const label = classLabel(span.cls);
  let what = span.meaning;
  if (what.toUpperCase().startsWith(label.toUpperCase() + ' ')) what = what.slice(label.length + 1);
  const words = what.split(' ');
  if (span.cls === 10) return { cls: label, what: code !== undefined && code > 0 ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : INVISIBLE_SHORT[what] ?? words.slice(0, 2).join(' ') };
  if (span.cls === 9) {
    if (code !== undefined) return { cls: 'UTF-8', what: `invalid \\x${(code & 0xff).toString(16).padStart(2, '0')}` };
    return { cls: 'UTF-8', what: (span.flags & SpanFlag.Stray) !== 0 ? 'stray C1 byte' : `invalid, ${counted(span.length, 'byte')}` };
  }
  if (span.cls === WITHHELD_CLASS) return { cls: label, what: 'one reading' };
  if (span.cls === 4 && /^\d+$/.test(words[0] ?? '')) what = `${words[0]} ${OSC_SHORT[Number(words[0])] ?? words.filter((w) => !STOP.has(w))[1] ?? ''}`.trim();
  else if (/^[A-Z0-9]{2,}$/.test(words[0] ?? '')) what = words[0];
  else what = words.slice(0, 2).join(' ');
  return { cls: label, what };
}

/** Hex offset with at least 8 digits, as the offset column shows it. */
export function hexOffset(offset: number, digits = 8): string {
  return offset.toString(16).padStart(digits, '0');
}

/** Human size: 1,066 B · 4.0 GiB. */
export function humanSize(bytes: number): string {
  const { value, unit } = binarySize(bytes);
  return unit === 'B' ? `${bytes.toLocaleString('en-US')} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
}
