// Leak scanner: counts, in a byte buffer, everything a sanitized stream must never contain.
// Works on bytes (not a decoded string) so raw C1 bytes and invalid UTF-8 are visible: a
// TextDecoder would have turned them into U+FFFD and hidden exactly what we are looking for.

export const LEAK_KINDS = [
  ['esc', 'ESC 0x1b'],
  ['c0', 'C0 other than LF/TAB'],
  ['del', 'DEL 0x7f'],
  ['rawC1', 'raw C1 byte 0x80-0x9f'],
  ['badUtf8', 'other invalid UTF-8'],
  ['c1cp', 'U+0080-009F (C2 80-9F)'],
  ['bidi', 'U+202A-202E / U+2066-2069'],
  ['tags', 'tag chars U+E0000-E007F'],
];

export function emptyCounts() {
  return Object.fromEntries(LEAK_KINDS.map(([k]) => [k, 0]));
}

export function totalLeaks(counts) {
  return LEAK_KINDS.reduce((n, [k]) => n + counts[k], 0);
}

/** Scans the whole of `buf` (one buffer: a split could cut a UTF-8 sequence) and adds to `counts`. */
export function scanLeaks(buf, counts = emptyCounts()) {
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const b = buf[i];
    if (b < 0x80) {
      if (b === 0x1b) counts.esc++;
      else if (b === 0x7f) counts.del++;
      else if (b < 0x20 && b !== 0x0a && b !== 0x09) counts.c0++;
      i++;
      continue;
    }
    // Multi-byte UTF-8: validate strictly (no overlongs, no surrogates, ≤ U+10FFFF).
    let need, cp, min;
    if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 0x0f; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x07; min = 0x10000; }
    else {
      if (b <= 0x9f) counts.rawC1++; else counts.badUtf8++;
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need && i + j < n; j++) {
      const c = buf[i + j];
      if ((c & 0xc0) !== 0x80) break;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (j <= need || cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      counts.badUtf8++; // lead byte of a broken sequence; its continuation bytes are counted next
      i++;
      continue;
    }
    if (cp <= 0x9f) counts.c1cp++;
    else if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) counts.bidi++;
    else if (cp >= 0xe0000 && cp <= 0xe007f) counts.tags++;
    i += need + 1;
  }
  return counts;
}

/** One-line summary: "PASS" or "FAIL esc=3 bidi=1 ...". */
export function leakVerdict(counts) {
  const bad = LEAK_KINDS.filter(([k]) => counts[k] > 0).map(([k]) => `${k}=${counts[k]}`);
  return bad.length === 0 ? 'PASS' : `FAIL ${bad.join(' ')}`;
}

/** Same, phrased for peers and raw input, where leaks are expected: "clean" or "leaks 123 (esc=…)". */
export function leakSummary(counts) {
  const total = totalLeaks(counts);
  if (total === 0) return 'clean';
  const bad = LEAK_KINDS.filter(([k]) => counts[k] > 0).map(([k]) => `${k}=${counts[k]}`);
  return `leaks ${total} (${bad.join(' ')})`;
}
