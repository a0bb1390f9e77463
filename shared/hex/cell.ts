/**
 * What one byte of a hex view is, as seen by the caret column. A string union (not a numeric
 * enum) so a renderer can map it straight to a CSS class and it survives JSON and worker
 * messages unchanged; V8 interns the literals, so comparing kinds costs no more than comparing
 * numbers.
 *
 * Every kind except `printable`, `space` and `utf8-lead` shows a notation instead of the byte.
 */
export type CellKind =
  /** ASCII 0x21–0x7E. `\`, `^` and `<` are shown escaped (`\\`, `\^`, `\<`): they introduce notation. */
  | 'printable'
  /** ASCII space 0x20, shown as a space. */
  | 'space'
  /** C0 control 0x00–0x1F in caret notation: `^@` … `^_` (`^[` ESC, `^M` CR, `^J` LF, `^I` TAB). */
  | 'c0'
  /** DEL 0x7F as `^?`. */
  | 'del'
  /**
   * C1 control as `<CSI>`-style mnemonic: a raw 0x80–0x9F byte that no UTF-8 sequence claims, or
   * the lead byte of C2 80–C2 9F (U+0080–U+009F; its second byte is `utf8-cont`).
   */
  | 'c1'
  /** First byte of a well-formed multi-byte character that is safe to show: the character itself. */
  | 'utf8-lead'
  /** Second to fourth byte of a well-formed multi-byte character: `·`. */
  | 'utf8-cont'
  /**
   * First byte of a well-formed character shown as `<U+0301>` because showing it raw could mislead:
   * combining marks, non-ASCII spaces, right-to-left letters (a bidi-aware display would reorder
   * the column), private use, unassigned, U+FFFD, and look-alikes of the notation characters.
   */
  | 'utf8-escaped'
  /**
   * First byte of an invisible or text-reordering character, shown as `<U+202E>`: bidi controls,
   * tag characters, zero-width and other format characters, line/paragraph separators, and every
   * Default_Ignorable_Code_Point.
   */
  | 'invisible'
  /** A byte of an ill-formed UTF-8 subsequence (or a stray 0xA0–0xFF byte): `\xff`. */
  | 'invalid'
  /**
   * A byte whose meaning depends on bytes outside the window that the caller did not supply: a
   * valid UTF-8 prefix cut off by the window's end, or a continuation byte at its start. `<e2?>`.
   */
  | 'partial';

/** Every {@link CellKind}, in documentation order (useful for legends and exhaustive tests). */
export const CELL_KINDS: readonly CellKind[] = Object.freeze([
  'printable', 'space', 'c0', 'del', 'c1', 'utf8-lead', 'utf8-cont', 'utf8-escaped', 'invisible',
  'invalid', 'partial',
] as const);

/**
 * One caret-column cell: exactly one per byte. `text` never contains a byte that can act on a
 * terminal or reorder text; cells are shared, frozen objects, so never mutate one.
 */
export interface Cell {
  readonly text: string;
  readonly kind: CellKind;
}

/** Builds a frozen cell; frozen because tables hand the same object to every occurrence. */
export function makeCell(text: string, kind: CellKind): Cell {
  return Object.freeze({ text, kind });
}
