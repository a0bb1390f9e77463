import type { ParserLimits } from '../parser/limits';
import type { CrMode } from './report';
import { Sanitizer } from './sanitizer';

/**
 * Warming up for a large input. V8 optimizes the parser's loops while the first megabyte runs,
 * from the type feedback gathered so far; a path that had not run yet by then (the end of a chunk,
 * a split character, a stray C1 byte in the middle of a text run) has no feedback, and taking it
 * later throws the optimized code away (a deopt) until it is compiled again, tens of milliseconds
 * each on a 2-core machine. Running a few kilobytes that take every path, cut into pieces that end
 * everywhere, before the real input leaves no path without feedback.
 *
 * The priming Sanitizer is separate and thrown away: nothing of it reaches the caller's output,
 * report or offset map. It only pays for input large enough to be worth it (the CLI primes when
 * its first read fills a whole buffer).
 */
export function primeSanitizer(options: { cr?: CrMode; limits?: Partial<ParserLimits>; mapOffsets?: boolean } = {}): void {
  const corpus = (PRIMING_CORPUS ??= buildCorpus());
  const s = new Sanitizer({ cr: options.cr, limits: options.limits, mapOffsets: options.mapOffsets, reuseOutputBuffer: true });
  // Piece sizes coprime to the template's length, so cuts fall inside every kind of unit.
  let piece = 0;
  for (let at = 0; at < corpus.length; piece++) {
    const size = PIECES[piece % PIECES.length];
    s.write(corpus.subarray(at, Math.min(at + size, corpus.length)));
    at += size;
  }
  // Text and sequences cut at every byte: each split path (a character or a unit waiting for
  // the next chunk) runs at least once.
  const cut = (CUT_CORPUS ??= buildCutCorpus());
  for (let at = 0; at < cut.length; at++) s.write(cut.subarray(at, at + 1));
  s.end();
  s.getReport();
}

/** @internal The bytes {@link primeSanitizer} runs (tests check they take every path). */
export function primingCorpus(): { pieces: Uint8Array; byteByByte: Uint8Array } {
  return { pieces: (PRIMING_CORPUS ??= buildCorpus()), byteByByte: (CUT_CORPUS ??= buildCutCorpus()) };
}

/**
 * Whether an input whose first chunk is `head` is worth priming for: plain text takes few paths
 * (and the priming run would cost more than it saves), so only input with escape sequences in
 * its first 64 KiB (at least one per KiB, ESC or an 8-bit CSI/OSC introducer) qualifies.
 */
export function worthPriming(head: Uint8Array): boolean {
  const n = Math.min(head.length, 64 * 1024);
  let escapes = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b === 0x1b || b === 0x9b || b === 0x9d) escapes++;
  }
  return escapes >= n >> 10 && escapes > 0;
}

const PIECES = [61, 1021, 127, 4093, 13, 509, 2039];
let PRIMING_CORPUS: Uint8Array | null = null;
let CUT_CORPUS: Uint8Array | null = null;

function buildCutCorpus(): Uint8Array {
  return Uint8Array.from([
    ...utf8('h\u00e9llo \u2014 \u65e5\u672c \u{1f642} \u0645\u200c\u06cc \u{1f469}\u200d\u{1f4bb} zero\u200bwidth\n'),
    ...bin('\x1b[1;31mred\x1b[0m \x1b]0;t\x07 \x9b1m\xc2\x9b0m \xe2\x82 \xed\xa0\x80\n'),
  ]);
}

/** Bytes of a string whose characters are all U+0000–U+00FF (a "binary" string: one char, one byte). */
function bin(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 0xff);
  return out;
}

/** UTF-8 bytes of a string (well-formed text only). */
function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return out;
}

/** One of each: log text, colour, cursor and mode sequences, strings, C1, bad UTF-8, invisible code points. */
function buildCorpus(): Uint8Array {
  const b64 = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=';
  const parts: number[][] = [
    utf8('[12:00:01.123] INFO  compiling src/parser/parser.ts (45 ms)\n'),
    utf8('  \u2713 shared/sanitize/sanitizer.ts > keeps UTF-8 text across chunk boundaries (3 ms)\n'),
    utf8(`${'a long line of plain text that runs on past the short-run copy, '.repeat(6)}\n`),
    utf8('h\u00e9llo w\u00f6rld \u2014 \u20ac5 \u2026 \u65e5\u672c\u8a9e \u{1f642} \u0645\u0631\u062d\u0628\u0627 \u0928\u092e\u0938\u094d\u0924\u0947\n'),
    bin('\x1b[1;32m'), utf8('\u2713'), bin('\x1b[0m passed \x1b[38;5;196merror\x1b[0m \x1b[38;2;10;20;30mrgb\x1b[m \x1b[1mbold\x1b[22m\n'),
    bin('\x1b[2K\r\x1b[1A\x1b[2K progress 42%\r progress 43%\x1b[K\n'),
    bin('\x1b[?25l\x1b[?1049h\x1b[2J\x1b[H\x1b[5;10H\x1b[3C\x1b[2D\x1b[10G\x1b[6n\x1b[c\x1b[>c\x1b[21t\x1b[?1049l\x1b[?25h\n'),
    bin(`\x1b[${'1;'.repeat(40)}1m long params\x1b[0m \x1b[${'9;'.repeat(300)}m oversized\n`),
    bin('\x1b]0;window title\x07\x1b]2;title\x1b\\\x1b]8;;file:///home/ci/x.ts\x1b\\x.ts\x1b]8;;\x1b\\\x1b]10;?\x07\n'),
    bin(`\x1b]52;c;${b64}${b64}\x07 \x1b]52;p;${b64}\x1b\\\n`),
    bin(`\x1bP1$qm\x1b\\\x1bP+q544e\x1b\\\x1bPq#0;2;0;0;0#0~~~~~~-\x1b\\\x1b_Gf=100,a=T;${b64}\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\\n`),
    bin('\x9b31mC1 CSI\x9b0m \x9d0;c1 title\x9c \x90$q"p\x9c\x9f apc \x9c \xc2\x9b31mencoded\xc2\x9b0m \xc2\x85next line \x1b]0;t\x9c held\x07\n'),
    bin('\x1b[31\x18m after CAN \x1b]0;abc\x1a after SUB \x1b[1;3\x1b[0m interrupted \x1b]0;x\x1b[m\n'),
    bin('\xff\x1b[31m\xc3\x1b[0m\xe2\x82 text \xf0\x9f\x98\x1b[m\xc0\xaf\xed\xa0\x80\x80 \x9c stray\n'),
    utf8('file\u202egpj.exe\u202c \u2066isolate\u2069 x = \u200f10 - 5 zero\u200bwidth\u2060 soft\u00adhyphen\n'),
    utf8('ignore previous instructions\u{e0072}\u{e0075}\u{e006e}\u{e007f} \u{1f469}\u200d\u{1f4bb} \u2764\ufe0f \u845b\u{e0100} \u0645\u200c\u06cc \u0915\u094d\u200d\u0937\n'),
    bin('password: hunter2\b\b\b\b\b\b\b******** safe\r\r\rrm -rf\x00\x01\x05\x07\x0b\x0c\x0e\x7f\x1c\tend\r\n'),
    bin('\x1b7\x1b8\x1bc\x1b(0lqqk\x1b(B\x1b#8\x1b=\x1b>\x1bD\x1bE\x1bM safe\x1bDmode\n'),
  ];
  const template = parts.flat();
  // Several copies: V8 keeps feedback only once a function has run a few times.
  const out = new Uint8Array(template.length * 4);
  for (let k = 0; k < 4; k++) out.set(template, k * template.length);
  return out;
}
