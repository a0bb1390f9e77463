// Go-to and range expressions: `0x1f00`, `1f00h`, `$1f00`, `7936`, `+16`, `-0x10`, `end`, and
// ranges `A-B`, `A..B`, `A:B` (end exclusive) or `A+N` (N bytes from A) for selection.

export type GotoResult =
  | { readonly ok: true; readonly offset: number; readonly end: number | null }
  | { readonly ok: false; readonly error: string };

function parseNumber(s: string): number | null {
  const t = s.trim().toLowerCase().replace(/[_\s]/g, '');
  if (t === '') return null;
  let v: number;
  if (/^0x[0-9a-f]+$/.test(t)) v = parseInt(t.slice(2), 16);
  else if (/^\$[0-9a-f]+$/.test(t)) v = parseInt(t.slice(1), 16);
  else if (/^[0-9a-f]+h$/.test(t)) v = parseInt(t.slice(0, -1), 16);
  else if (/^[0-9]+$/.test(t)) v = parseInt(t, 10);
  else return null;
  return Number.isSafeInteger(v) ? v : null;
}

/** Resolves an expression against the cursor and artifact size; offsets are clamped into the file. */
export function parseGoto(input: string, cursor: number, size: number): GotoResult {
  const text = input.trim().toLowerCase();
  const last = Math.max(0, size - 1);
  if (text === '') return { ok: false, error: 'Type an offset' };
  if (text === 'end' || text === '$') return { ok: true, offset: last, end: null };
  if (text === 'start' || text === 'home') return { ok: true, offset: 0, end: null };
  const rel = /^([+-])(.+)$/.exec(text);
  if (rel) {
    const n = parseNumber(rel[2]);
    if (n === null) return { ok: false, error: `Not a number: ${rel[2]}` };
    const offset = rel[1] === '+' ? cursor + n : cursor - n;
    if (offset < 0 || offset > last) return { ok: false, error: `Offset ${offset} is outside the artifact (0–${last})` };
    return { ok: true, offset, end: null };
  }
  const range = /^(.+?)(\.\.|:|-|\+)(.+)$/.exec(text);
  if (range) {
    const a = parseNumber(range[1]);
    const b = parseNumber(range[3]);
    if (a === null || b === null) return { ok: false, error: 'Not a range: use A-B, A..B, A:B or A+N' };
    const end = range[2] === '+' ? a + b : range[2] === '-' ? b + 1 : range[2] === '..' ? b + 1 : b;
    if (a > last || end <= a) return { ok: false, error: `Range ${a}–${end} is empty or outside the artifact` };
    return { ok: true, offset: a, end: Math.min(end, size) };
  }
  const n = parseNumber(text);
  if (n === null) return { ok: false, error: `Not an offset: ${input.trim()} (try 0x1f, 1fh, 31, +16, end)` };
  if (n > last) return { ok: false, error: `Offset ${n} is past the last byte (${last})` };
  return { ok: true, offset: n, end: null };
}
