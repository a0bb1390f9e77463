// The sanitized text of a raw byte range, as the whole stream's reading has it. Sanitizing the
// range alone would start the parser in ground inside whatever was open at its first byte: a range
// that begins inside an OSC 52 payload would hand the payload out as text. So the stream is read
// from its first byte to the range's end, and only the text whose raw bytes lie in the range is kept
// (the offset map says where each piece came from), with the spans that start there counted.
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { SPAN_CLASS_NAMES } from '../../../shared/parser';
import { Sanitizer, SegmentKind } from '../../../shared/sanitize';

const CHUNK = 1 << 20;

/** What a text extract says of its range. */
export interface RangeText {
  /** UTF-8 text made from the range's bytes (a character cut by the range's edge is left out). */
  readonly text: Uint8Array;
  /** Removed spans that start in the range, by class, with their bytes inside it. */
  readonly removed: { spans: number; bytes: number; classes: Record<string, number> };
}

/**
 * Sanitizes `path` from offset 0 to `end` (the file is read in 1 MiB chunks, never whole) and keeps
 * what came from raw `[start, end)`: verbatim text clipped to the range, replacement text (a line
 * break made from CR, U+FFFD) when the byte it stands for is in it.
 */
export async function sanitizedRange(path: string, start: number, end: number): Promise<RangeText> {
  const kept: Uint8Array[] = [];
  const classes: Record<string, number> = {};
  let spans = 0;
  let removedBytes = 0;
  // Text pieces of the current write, in text order: [text offset, text length, raw offset, raw length, replaced].
  const pieces: number[] = [];
  const s = new Sanitizer({
    hooks: {
      onSpan: (cls, offset, length) => {
        if (offset < start || offset >= end) return;
        spans++;
        removedBytes += Math.min(end, offset + length) - offset;
        const name = SPAN_CLASS_NAMES[cls];
        classes[name] = (classes[name] ?? 0) + 1;
      },
      onSegment: (t, tl, r, rl, kind) => {
        pieces.push(t, tl, r, rl, kind === SegmentKind.Replaced ? 1 : 0);
      },
    },
  });
  let emitted = 0;
  const take = (text: Uint8Array): void => {
    for (let i = 0; i < pieces.length; i += 5) {
      const at = pieces[i] - emitted;
      const r = pieces[i + 2];
      if (pieces[i + 4] === 1) {
        if (r >= start && r < end) kept.push(text.slice(at, at + pieces[i + 1]));
        continue;
      }
      const lo = Math.max(r, start);
      const hi = Math.min(r + pieces[i + 3], end);
      if (hi > lo) kept.push(text.slice(at + (lo - r), at + (hi - r)));
    }
    pieces.length = 0;
    emitted += text.length;
  };
  const fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const buf = new Uint8Array(CHUNK);
    for (let at = 0; at < end; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, end - at), at);
      if (bytesRead === 0) throw new RangeError(`range [${start}, ${end}) is past the end of the raw file`);
      take(s.write(buf.subarray(0, bytesRead)));
      at += bytesRead;
    }
  } finally {
    await fh.close();
  }
  // The range's end is not the stream's: what the Sanitizer still holds (an open line, a pending
  // break) belongs to bytes read so far, so it ends here as the range does.
  take(s.end());
  const all = new Uint8Array(kept.reduce((n, k) => n + k.length, 0));
  let o = 0;
  for (const k of kept) {
    all.set(k, o);
    o += k.length;
  }
  return { text: trimCutCharacters(all), removed: { spans, bytes: removedBytes, classes } };
}

/** Drops continuation bytes at the start and an unfinished character at the end (the range cut them). */
function trimCutCharacters(t: Uint8Array): Uint8Array {
  let a = 0;
  while (a < t.length && (t[a] & 0xc0) === 0x80) a++;
  let b = t.length;
  let k = b - 1;
  while (k >= a && (t[k] & 0xc0) === 0x80) k--;
  if (k >= a && t[k] >= 0xc0) {
    const need = t[k] >= 0xf0 ? 4 : t[k] >= 0xe0 ? 3 : 2;
    if (b - k < need) b = k;
  }
  return t.subarray(a, b);
}
