/**
 * An independent 8-bit reading of a byte stream: what a VT500-style terminal that decodes
 * well-formed UTF-8 but honours every raw 0x80–0x9F byte outside a well-formed character as a C1
 * control would print. Written from the DEC diagram (vt100.net/emu/dec_ansi_parser) and the
 * DESIGN's definition of C1, as a plain interpreter with its own UTF-8 check (Unicode Table 3-7),
 * not from the implementation's table or decoder. It shares only Airlock's documented departure
 * for non-ASCII inside a sequence: inside an ESC, CSI or DCS header it is ignored and the sequence
 * goes on (as tmux and, after ESC, libvterm do). Used by one-reading.test.ts and
 * terminal-differential.test.ts beside the real terminals.
 */

type St = 'ground' | 'esc' | 'escInt' | 'csi' | 'dcsHead' | 'dcs' | 'osc' | 'sos';

/** Length of the well-formed UTF-8 character at `b[i]` (a byte >= 0x80), or 0 if there is none. */
function wellFormed(b: Uint8Array, i: number): number {
  const x = b[i];
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (x >= 0xc2 && x <= 0xdf) n = 2;
  else if (x >= 0xe0 && x <= 0xef) {
    n = 3;
    if (x === 0xe0) lo = 0xa0;
    if (x === 0xed) hi = 0x9f;
  } else if (x >= 0xf0 && x <= 0xf4) {
    n = 4;
    if (x === 0xf0) lo = 0x90;
    if (x === 0xf4) hi = 0x8f;
  } else return 0;
  for (let k = 1; k < n; k++) {
    const y = b[i + k];
    if (y === undefined || y < lo || y > hi) return 0;
    lo = 0x80;
    hi = 0xbf;
  }
  return n;
}

function codePoint(b: Uint8Array, i: number, n: number): number {
  if (n === 2) return ((b[i] & 0x1f) << 6) | (b[i + 1] & 0x3f);
  if (n === 3) return ((b[i] & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
  return ((b[i] & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
}

/** The text the 8-bit reading prints (in order; LF and TAB included, U+FFFD for invalid bytes). */
export function read8bit(input: Uint8Array): string {
  let out = '';
  let st: St = 'ground';
  let escInString = false;
  let i = 0;
  while (i < input.length) {
    const x = input[i];
    // The unit: an ASCII byte, a well-formed character, a C1 control (raw or U+0080–U+009F), or an invalid byte.
    let c1 = -1;
    let cp = -1;
    let len = 1;
    if (x < 0x80) cp = x;
    else {
      const n = wellFormed(input, i);
      if (n > 0) {
        len = n;
        const v = codePoint(input, i, n);
        if (v >= 0x80 && v <= 0x9f) c1 = v;
        else cp = v;
      } else if (x <= 0x9f) c1 = x;
      else cp = 0xfffd; // invalid byte
    }
    i += len;
    const nonAscii = cp >= 0x80;

    if (escInString) {
      escInString = false;
      if (cp === 0x5c) {
        st = 'ground';
        continue;
      }
      st = 'esc'; // the ESC ended the string and starts a sequence: read this unit there
    }
    // Anywhere.
    if (cp === 0x18 || cp === 0x1a) {
      st = 'ground';
      continue;
    }
    if (cp === 0x1b) {
      if (st === 'osc' || st === 'dcs' || st === 'sos' || st === 'dcsHead') escInString = true;
      st = 'esc';
      continue;
    }
    if (c1 >= 0) {
      st = c1 === 0x90 ? 'dcsHead' : c1 === 0x9b ? 'csi' : c1 === 0x9d ? 'osc' : c1 === 0x98 || c1 === 0x9e || c1 === 0x9f ? 'sos' : 'ground';
      continue;
    }
    switch (st) {
      case 'ground':
        if (cp === 0x09 || cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || nonAscii) out += String.fromCodePoint(cp);
        break;
      case 'esc':
        if (nonAscii) break;
        if (cp >= 0x20 && cp <= 0x2f) st = 'escInt';
        else if (cp === 0x5b) st = 'csi';
        else if (cp === 0x5d) st = 'osc';
        else if (cp === 0x50) st = 'dcsHead';
        else if (cp === 0x58 || cp === 0x5e || cp === 0x5f) st = 'sos';
        else if (cp >= 0x30 && cp <= 0x7e) st = 'ground';
        else if (cp === 0x0a || cp === 0x09) out += String.fromCodePoint(cp);
        break;
      case 'escInt':
        if (nonAscii) break;
        if (cp >= 0x30 && cp <= 0x7e) st = 'ground';
        else if (cp === 0x0a || cp === 0x09) out += String.fromCodePoint(cp);
        break;
      case 'csi':
        if (nonAscii) break;
        if (cp >= 0x40 && cp <= 0x7e) st = 'ground';
        else if (cp === 0x0a || cp === 0x09) out += String.fromCodePoint(cp);
        break;
      case 'dcsHead':
        if (cp >= 0x40 && cp <= 0x7e) st = 'dcs';
        break;
      case 'osc':
        if (cp === 0x07) st = 'ground';
        break;
      case 'dcs':
      case 'sos':
        break;
    }
  }
  return out;
}
