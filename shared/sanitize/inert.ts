import { Parser } from '../parser/parser';
import { NoopSink } from '../parser/sink';
import type { SpanClass } from '../parser/span-class';

/**
 * Where `text` stops being inert: the UTF-16 index of the first character the parser would not
 * pass through as plain text (ESC, a C0 control but LF and TAB, DEL, C1, an invisible or
 * reordering code point outside the exceptions real text needs, a lone surrogate), or -1 when
 * every terminal and every renderer shows it as the text it is.
 *
 * One definition for everything that leaves the app as text — the clipboard, exported files —
 * so "inert" means exactly "the sanitizer would keep it unchanged": an emoji ZWJ sequence or a
 * Persian ZWNJ copies, a bidi override or a zero-width run does not.
 */
export function firstNotInert(text: string): number {
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  const limit = lone ? lone.index : text.length;
  const sink = new FirstSpan();
  const parser = new Parser(sink);
  parser.feed(utf8(text, limit));
  parser.end();
  if (sink.at >= 0) return utf16Index(text, sink.at);
  return lone ? lone.index : -1;
}

/** True when `text` is safe to paste anywhere (see {@link firstNotInert}). */
export function isInert(text: string): boolean {
  return firstNotInert(text) === -1;
}

class FirstSpan extends NoopSink {
  at = -1;
  override span(_cls: SpanClass, offset: number): void {
    if (this.at < 0) this.at = offset;
  }
}

/** UTF-8 of `text[0..end)`, which holds no lone surrogate. */
function utf8(text: string, end: number): Uint8Array {
  const out = new Uint8Array(end * 3);
  let n = 0;
  for (let i = 0; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c < 0xdc00) {
      c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return out.subarray(0, n);
}

/** The UTF-16 index of the character whose UTF-8 encoding holds byte `offset`. */
function utf16Index(text: string, offset: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : 3;
    if (bytes + width > offset) return i;
    bytes += width;
    if (width === 4) i++;
  }
  return text.length;
}
