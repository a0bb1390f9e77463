// What a removed span carried, decoded (#39 item 7): the OSC 52 clipboard write's base64, an OSC 8
// hyperlink's target, an OSC 0/1/2 title, the ASCII a run of tag characters spells. Pure functions
// over the span's raw bytes; every string they return is caret notation (shared/hex, the hex view's
// own cells, without the `·` that marks a character's further bytes there), so a decoded ESC shows
// as `^[`, a bidi override as `<U+202E>`, an ill-formed byte as `\xff`, and nothing decoded can act
// on a terminal or reorder the screen. The caller bounds the bytes.
import { formatCells } from '../../../shared/hex/cells';

/** Decoded bytes shown per payload at most (the rest is counted as cut off). */
export const MAX_PAYLOAD_BYTES = 4096;
/** Raw bytes of one span read at most: enough for MAX_PAYLOAD_BYTES decoded from base64, and the header. */
export const MAX_SPAN_HEAD = Math.ceil(MAX_PAYLOAD_BYTES / 3) * 4 + 64;

export type PayloadKind = 'clipboard' | 'hidden-text' | 'link' | 'title';

/** One decoded payload before it is placed (offset, span index). */
export interface Decoded {
  readonly kind: PayloadKind;
  readonly detail: string;
  readonly text: string;
  readonly bytes: number;
  readonly truncated: boolean;
  readonly error: string | null;
}

const TITLES: Record<number, string> = { 0: 'window and icon title', 1: 'icon title', 2: 'window title' };

/** OSC command numbers decoded here. */
export const DECODED_OSC: ReadonlySet<number> = new Set([0, 1, 2, 8, 52]);

/**
 * Decodes an OSC span: `head` is its first bytes (all of them unless `cut`). Null for a command
 * that carries nothing to decode (OSC 8 that ends a link, another command).
 */
export function decodeOsc(head: Uint8Array, cut: boolean): Decoded | null {
  const body = oscBody(head, cut);
  const semi = body.indexOf(0x3b);
  if (semi < 0) return null;
  const cmd = Number(ascii(body.subarray(0, semi)));
  const rest = body.subarray(semi + 1);
  if (cmd === 52) return clipboard(rest, cut);
  if (cmd === 8) {
    const s = rest.indexOf(0x3b);
    if (s < 0) return null;
    const target = rest.subarray(s + 1);
    if (target.length === 0 && !cut) return null;
    return shown('link', params(rest.subarray(0, s)), target, cut);
  }
  if (cmd in TITLES) return shown('title', TITLES[cmd], rest, cut);
  return null;
}

/** The text a run of tag characters spells (U+E0000 + n is ASCII n), `count` of them in all. */
export function decodeTags(codePoints: readonly number[], count: number): Decoded {
  const take = Math.min(codePoints.length, MAX_PAYLOAD_BYTES);
  const bytes = Uint8Array.from(codePoints.slice(0, take), (cp) => cp - 0xe0000);
  return { kind: 'hidden-text', detail: `${count} tag character${count === 1 ? '' : 's'}`, text: payloadNotation(bytes), bytes: count, truncated: count > take, error: null };
}

/** `Pc;Pd` of OSC 52: the selections and the base64 data (or `?`, a read-back request). */
function clipboard(rest: Uint8Array, cut: boolean): Decoded {
  const s = rest.indexOf(0x3b);
  const sel = s < 0 ? rest : rest.subarray(0, s);
  const data = s < 0 ? new Uint8Array(0) : rest.subarray(s + 1);
  const detail = `selection ${sel.length > 0 ? payloadNotation(sel.subarray(0, 64)) : '(default)'}`;
  if (data.length === 1 && data[0] === 0x3f && !cut) {
    return { kind: 'clipboard', detail: `${detail} · a read-back request: asks the terminal to send its clipboard to the program`, text: '', bytes: 0, truncated: false, error: null };
  }
  const decoded = base64(data, cut);
  if (typeof decoded === 'string') {
    // Shown as it was sent, so a reviewer sees what the terminal was given.
    return { ...shown('clipboard', detail, data, cut), bytes: 0, error: decoded };
  }
  const take = decoded.subarray(0, MAX_PAYLOAD_BYTES);
  return { kind: 'clipboard', detail, text: payloadNotation(take), bytes: decoded.length, truncated: cut || decoded.length > take.length, error: null };
}

/**
 * Strict base64 (RFC 4648 §4: the alphabet, `=` padding only at the end, whole quanta): the bytes,
 * or why not, naming the first bad character's place. `cut`: `data` is a prefix, decoded up to its
 * last whole quantum.
 */
export function base64(data: Uint8Array, cut: boolean): Uint8Array | string {
  let pad = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    const valid = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (c === 0x3d) {
      pad++;
      continue;
    }
    if (!valid || pad > 0) return `invalid base64: ${payloadNotation(Uint8Array.of(c))} at character ${i + 1} of ${data.length}${cut ? '+' : ''} (shown as sent)`;
  }
  if (pad > 2) return `invalid base64: ${pad} padding characters (shown as sent)`;
  const whole = cut ? data.length - (data.length % 4) : data.length;
  if (!cut && whole % 4 !== 0) return `invalid base64: ${whole} characters is not a whole number of 4-character groups (shown as sent)`;
  return new Uint8Array(Buffer.from(ascii(data.subarray(0, whole)), 'base64'));
}

function shown(kind: PayloadKind, detail: string, bytes: Uint8Array, cut: boolean): Decoded {
  const take = bytes.subarray(0, MAX_PAYLOAD_BYTES);
  return { kind, detail, text: payloadNotation(take), bytes: bytes.length, truncated: cut || bytes.length > take.length, error: null };
}

function params(p: Uint8Array): string {
  return p.length === 0 ? 'no parameters' : `parameters ${payloadNotation(p.subarray(0, 200))}`;
}

/** An OSC's bytes without its introducer (ESC ], 0x9D, C2 9D) and terminator (BEL, ESC \, 0x9C, C2 9C). */
function oscBody(raw: Uint8Array, cut: boolean): Uint8Array {
  let i = 0;
  if (raw[0] === 0x1b && raw[1] === 0x5d) i = 2;
  else if (raw[0] === 0x9d) i = 1;
  else if (raw[0] === 0xc2 && raw[1] === 0x9d) i = 2;
  let j = raw.length;
  if (!cut) {
    if (raw[j - 1] === 0x07) j -= 1;
    else if (raw[j - 1] === 0x5c && raw[j - 2] === 0x1b) j -= 2;
    else if (raw[j - 1] === 0x9c) j -= raw[j - 2] === 0xc2 ? 2 : 1;
  }
  return raw.subarray(i, Math.max(i, j));
}

/**
 * Bytes as caret cells (a complete stream: a sequence cut at either end is ill-formed), leaving out
 * the continuation cells: a well-formed character is its lead cell alone, the character or its
 * `<U+…>` notation. Inert like the hex view's caret column.
 */
export function payloadNotation(bytes: Uint8Array): string {
  let text = '';
  for (const cell of formatCells(bytes, 0, { lookahead: new Uint8Array(0) })) if (cell.kind !== 'utf8-cont') text += cell.text;
  return text;
}

function ascii(b: Uint8Array): string {
  let s = '';
  for (const c of b) s += String.fromCharCode(c);
  return s;
}
