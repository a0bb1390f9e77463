/**
 * Splits caret-column text back into its cells, one string per byte. This is the executable form
 * of the rule that makes the plain text unambiguous: every cell's first character fixes its
 * length, and the characters that start a notation (`\`, `^`, `<`) never appear raw as text.
 *
 *   `\\` `\^` `\<` `\xHH`   escaped `\` `^` `<`, and an invalid byte
 *   `^X`                    C0 (`^@`–`^_`) or DEL (`^?`)
 *   `<…>`                   C1 name `<CSI>`, code point `<U+202E>`, or partial byte `<e2?>`
 *   any other code point    itself: ASCII, a shown character, or the continuation mark `·`
 *
 * @throws SyntaxError if `text` does not follow this grammar (it was not made by this module).
 */
export function splitCaretText(text: string): string[] {
  const cells: string[] = [];
  let at = 0;
  while (at < text.length) {
    const length = cellLengthAt(text, at);
    cells.push(text.slice(at, at + length));
    at += length;
  }
  return cells;
}

function cellLengthAt(text: string, at: number): number {
  const first = text[at];
  if (first === '\\') {
    const second = text[at + 1];
    if (second === '\\' || second === '^' || second === '<') return 2;
    if (second === 'x' && /^[0-9a-f]{2}$/.test(text.slice(at + 2, at + 4))) return 4;
    throw new SyntaxError(`bad escape at ${at}`);
  }
  if (first === '^') {
    if (!/^[@A-Z[\\\]^_?]$/.test(text[at + 1] ?? '')) throw new SyntaxError(`bad caret notation at ${at}`);
    return 2;
  }
  if (first === '<') {
    const close = text.indexOf('>', at + 1);
    if (close < 0) throw new SyntaxError(`unclosed notation at ${at}`);
    return close - at + 1;
  }
  return text.codePointAt(at)! > 0xffff ? 2 : 1;
}
