import { SPAN_CLASS_NAMES, SpanFlag, type SpanClass } from '../../../shared/parser/span-class';
import { paintCell } from './paint';

/*
 * The annotation lines of `airlock inspect`, as text: the definition the dump engine
 * (engine/lines.ts) is held to. Under each row, in order of their first offsets:
 *
 *   `          ^ 00000036 csi             437 B  SGR select graphic rendition [oversized]`
 *   `          ^ 00000100 c0                3 B  3x BEL bell`
 *   `          ^ 00001330 c0                1 B each  8x BEL bell  (every 2 B to 0000133e)`
 *   `          ^ 00001330 c0                1 B each  3x BEL bell  (at 00001330 00001333 00001334)`
 *
 * a group (a span, or a run of equal adjacent spans: its count and whole length) under the row
 * where it starts; single spans alike in class, meaning, flags and length coalesce into one line
 * saying how many there are and where (evenly spaced: the stride and the last; else each offset).
 * Every piece of text is Airlock's own (offsets, counts, the parser's meaning tables): inert.
 */

/** Digits of the offsets in annotation lines (the dump's offset column). */
const OFFSET_DIGITS = 8;
/** Lengths below this are right-aligned in a field of this many columns; longer ones are written as they are. */
const LENGTH_COLUMNS = 6;
const LENGTH_FIELD_MAX = 10 ** LENGTH_COLUMNS;

/**
 * The words of a coalesced line, in the order the engine's table keeps them (engine/lines.ts
 * copies them by index): `each`, `every`, `to` and `at` as in the examples above.
 */
export const COALESCED_WORDS = [' each  ', '  (every ', ' B to ', '  (at'] as const;
const [EACH, EVERY, TO, AT] = COALESCED_WORDS;

/** A group of spans, as a dump takes it from its log. */
export interface SpanGroup {
  /** Stream offset of its first span. */
  readonly start: number;
  /** A span's length, or a run's whole length. */
  readonly len: number;
  /** Spans in the run (1: a single span). */
  readonly count: number;
  readonly cls: SpanClass;
  readonly flags: number;
  readonly meaning: string;
}

/** Flag names for an annotation, e.g. `[unterminated, 8-bit]`; empty when no flag is set. */
export function flagLabel(flags: number): string {
  const names: string[] = [];
  if (flags & SpanFlag.Unterminated) names.push('unterminated');
  if (flags & SpanFlag.Oversized) names.push('oversized');
  if (flags & SpanFlag.Malformed) names.push('malformed');
  if (flags & SpanFlag.EightBit) names.push('8-bit');
  if (flags & SpanFlag.Utf8Encoded) names.push('UTF-8-encoded C1');
  if (flags & SpanFlag.Stray) names.push('raw byte outside UTF-8: C1 to 8-bit terminals only');
  return names.length > 0 ? `[${names.join(', ')}]` : '';
}

/** The class column of a line: ` csi          ` (the class name padded, a space either side). */
export function classColumn(cls: SpanClass): string {
  return ` ${SPAN_CLASS_NAMES[cls].padEnd(12)} `;
}

/** What begins every line: the offset column's width of spaces, `^` (painted in colour) and a space. */
export function lineHead(color: boolean): string {
  return `${' '.repeat(OFFSET_DIGITS + 2)}${color ? paintCell('^', 'note') : '^'} `;
}

/** What begins each further visual row of a line cut to the terminal: under the offset column, `+ `. */
export const LINE_CONTINUATION = `${' '.repeat(OFFSET_DIGITS + 2)}+ `;

const hex = (v: number): string => v.toString(16).padStart(OFFSET_DIGITS, '0');

/**
 * The lines (without LF) of `groups`, the groups a row took in start order (those in the shown
 * range): one per bucket (a run alone; single spans alike and of one length together), in order
 * of each bucket's first group.
 */
export function annotationLines(groups: readonly SpanGroup[], color: boolean): string[] {
  const buckets: SpanGroup[][] = [];
  const keyOf = (g: SpanGroup, k: number): string => (g.count === 1 ? `${g.cls}/${g.flags}/${g.meaning}/${g.len}` : `run ${k}`);
  const byKey = new Map<string, SpanGroup[]>();
  groups.forEach((g, k) => {
    const key = keyOf(g, k);
    let bucket = byKey.get(key);
    if (bucket === undefined) {
      byKey.set(key, (bucket = []));
      buckets.push(bucket);
    }
    bucket.push(g);
  });
  const head = lineHead(color);
  return buckets.map((bucket) => {
    const g = bucket[0];
    const label = flagLabel(g.flags);
    const what = `${g.meaning}${label ? ` ${label}` : ''}`;
    const len = g.len < LENGTH_FIELD_MAX ? String(g.len).padStart(LENGTH_COLUMNS) : String(g.len);
    const lead = `${head}${hex(g.start)}${classColumn(g.cls)}${len} B`;
    if (bucket.length === 1) return `${lead}  ${g.count > 1 ? `${g.count}x ` : ''}${what}`;
    const gaps = bucket.slice(1).map((m, k) => m.start - bucket[k].start);
    if (bucket.length > 2 && gaps.every((gap) => gap === gaps[0])) {
      return `${lead}${EACH}${bucket.length}x ${what}${EVERY}${gaps[0]}${TO}${hex(bucket[bucket.length - 1].start)})`;
    }
    return `${lead}${EACH}${bucket.length}x ${what}${AT} ${bucket.map((m) => hex(m.start)).join(' ')})`;
  });
}
