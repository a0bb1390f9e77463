// Private key blocks span lines, so they are read by structure instead of by one pattern: a
// BEGIN header, optional armor headers (Proc-Type:, DEK-Info:, Version:), base64 lines separated by
// line breaks — real ones, or the `\n` escapes of a JSON string (a GCP service-account key) — and
// an END footer. A block without its footer (cut by --max-bytes, or printed in part) ends at the
// last line that can be part of a key; a footer without its header takes the key lines above it.

/** Where a key block's body ends. */
export interface PemBody {
  /** `closed`: at the END footer (end is after it); `ended`: at something that is no key line; `open`: at the end of the text. */
  readonly state: 'closed' | 'ended' | 'open';
  /** End of the block: after the footer, or after the last key character. */
  readonly end: number;
}

/** Full-width key lines are 64 (PEM), 70 (OpenSSH) or 76 (PGP) characters; only the last is shorter. */
const FULL_LINE = 40;
const MAX_LINE = 100;
const ARMOR_HEADER = /[A-Za-z][A-Za-z0-9-]{1,30}: [^\n\r\\]{0,200}/y;
const FOOTER = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;

function isBase64(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x3d;
}

/** Skips line breaks, indentation and `\n` / `\r` escapes (also doubly escaped); returns the next position. */
function skipSeparators(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || c === 0x20 || c === 0x09) i++;
    else if (c === 0x5c && (text[i + 1] === 'n' || text[i + 1] === 'r')) i += 2;
    else if (c === 0x5c && text[i + 1] === '\\' && (text[i + 2] === 'n' || text[i + 2] === 'r')) i += 3;
    else break;
  }
  return i;
}

/**
 * Reads a key block's body from `from`: just after its BEGIN header, or (`continued`) where a
 * block redacted in parts goes on, possibly in the middle of a key line.
 */
export function readPemBody(text: string, from: number, continued = false): PemBody {
  const n = text.length;
  let i = from;
  let lastGood = from;
  let sawBody = continued;
  // The rest of a key line cut by the previous part may be short.
  let first = continued;
  for (;;) {
    const next = skipSeparators(text, i);
    if (next >= n) return { state: 'open', end: lastGood };
    FOOTER.lastIndex = next;
    if (FOOTER.test(text)) return { state: 'closed', end: FOOTER.lastIndex };
    if (!sawBody) {
      ARMOR_HEADER.lastIndex = next;
      if (ARMOR_HEADER.test(text)) {
        i = lastGood = ARMOR_HEADER.lastIndex;
        continue;
      }
    }
    let j = next;
    while (j < n && j - next <= MAX_LINE && isBase64(text.charCodeAt(j))) j++;
    const len = j - next;
    if (len === 0 || len > MAX_LINE) return { state: 'ended', end: lastGood };
    if (len < FULL_LINE && j < n && !(first && next === from)) {
      // A short line is a key's last line only if the footer follows it.
      const after = skipSeparators(text, j);
      FOOTER.lastIndex = after;
      if (after < n && !FOOTER.test(text)) return { state: 'ended', end: lastGood };
    }
    sawBody = true;
    first = false;
    i = lastGood = j;
  }
}

const BODY_LINE = /^[ \t]*[A-Za-z0-9+/=]{1,100}\r?$/;

/** Whether `line` (without its LF) can be a full-width key line: what is held back at the end of a block. */
export function isKeyLine(line: string): boolean {
  return line.length >= FULL_LINE && BODY_LINE.test(line);
}
