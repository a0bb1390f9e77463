// AssemblyScript (compiled by scripts/build-wasm.mjs into ../engine.generated.ts; not TypeScript).
//
// The fixed part of the dump engine's memory: a control block the JavaScript side reads and
// writes between calls, and tables JavaScript fills once (engine.ts, from the text definitions
// in shared/hex and paint.ts, so the engine holds no notation or colour of its own). Regions
// whose size depends on the layout (held bytes, output, span log, scratch) lie above HEAP.

/** f64 slots shared with JavaScript; see the C_ constants. */
export const CTRL: usize = 64;
/** Stream offset of the first held byte. */
export const C_HOLD_AT: i32 = 0;
/** Held bytes (from HOLD). */
export const C_HOLD_LEN: i32 = 1;
/** Bytes parsed so far (the stream offset after the last held byte). */
export const C_FED: i32 = 2;
/** Bytes in the output buffer. */
export const C_OUT_P: i32 = 3;
/** What a NEED_CP status asks for: the code point. */
export const C_ARG: i32 = 4;
/** Stream offset up to which rows are shown. */
export const C_POS: i32 = 5;
/** Output is written out (FLUSH) once it holds this many bytes. */
export const C_FLUSH_AT: i32 = 6;
/** Bumped whenever the engine takes memory (a region may have moved, the memory grown): JavaScript's views are then made again. */
export const C_MOVED: i32 = 7;

/** The 16 lowercase hex digits. */
export const T_HEX: usize = 256;
/** Caret text of each ASCII byte, 2 bytes each (`^[`, `a`, `\|`). */
export const T_CARET: usize = 512;
/** Its length (1 or 2). */
export const T_CARET_LEN: usize = 768;
/** Colour of each ASCII byte's cell outside any span. */
export const T_ASCII_COLOUR: usize = 896;
/** Each colour's SGR, 8 bytes each; colour 0 is none. */
export const T_SGR: usize = 1024;
/** Length of each colour's SGR. */
export const T_SGR_LEN: usize = 1280;
/** Colour of a byte in a span of each class. */
export const T_SPAN_COLOUR: usize = 1312;
/**
 * Colours of cells outside spans by kind: see K_ constants. (Entry 0 is unused: a continuation
 * cell takes its lead cell's colour, carried with the UTF-8 state in rows.ts.)
 */
export const T_KIND_COLOUR: usize = 1344;
export const K_INVALID: usize = 1;
export const K_PARTIAL: usize = 2;
export const K_C1: usize = 3;
/** Caret text of each raw C1 byte (`<CSI>`), 8 bytes each, and its length. */
export const T_C1: usize = 1536;
export const T_C1_LEN: usize = 1792;
/** ` csi          ` per span class: 16 bytes each, the text's length at +15. */
export const T_CLASS: usize = 2048;
/** The head of an annotation line (`          ^ `, the `^` painted in colour); its length. */
export const T_HEAD: usize = 2304;
export const T_HEAD_LEN: usize = 2360;
/** `\xNN` of each byte, 4 bytes each. */
export const T_INVALID: usize = 2560;
/** `<NN?>` of each byte, 8 bytes each (5 used). */
export const T_PARTIAL: usize = 3584;
/** The continuation mark `·` (2 bytes). */
export const T_CONT: usize = 5632;
/** What starts each further visual row of a cut row (`        + `) and its length. */
export const T_ROW_CONT: usize = 5648;
export const T_ROW_CONT_LEN: usize = 5695;
/** What starts each further visual row of a cut annotation line (`          + `) and its length. */
export const T_LINE_CONT: usize = 5696;
export const T_LINE_CONT_LEN: usize = 5759;
/** Fixed words of annotation lines, 16 bytes each, the length at +15: see the W_ constants. */
export const T_WORDS: usize = 5760;
/** ` each  ` */
export const W_EACH: usize = 0;
/** `  (every ` */
export const W_EVERY: usize = 1;
/** ` B to ` */
export const W_B_TO: usize = 2;
/** `  (at` */
export const W_AT: usize = 3;
/** `|`, and 16 spaces (the engine's own). */
export const T_BAR: usize = 5840;
export const T_SPACES: usize = 5856;
/** The two hex digits of each byte value, 2 bytes each. */
export const T_HEX2: usize = 6144;
/** Vector constants of the hot paths, 16 bytes each (engine/vectors.ts fills them). */
export const T_VEC: usize = 7168;
/** The flag label of each flags value (` [unterminated]`, with its leading space), 256 bytes each, length at +254..255. */
export const T_FLAGS: usize = 8192;
/**
 * Lead cells of non-ASCII code points, direct-mapped by {@link cpSlot}: 32 bytes a slot, the
 * code point (i32, 0 for none: U+0000 is ASCII, never looked up here) at +0, its colour at +4,
 * its text's length at +5 (0: shown as itself), the text at +8.
 */
export const T_CP: usize = 24576;
export const CP_SLOTS: i32 = 4096;
/** Span meanings by number: the text's offset in T_MEANING_TEXT (i32) and its length (i32). */
export const T_MEANING: usize = 155648;
export const MEANINGS: i32 = 8192;
export const T_MEANING_TEXT: usize = 221184;
export const MEANING_TEXT_BYTES: i32 = 262144;
/** Where regions sized by the layout begin. */
export const HEAP: usize = 483328;

/** Slot of code point `cp` in T_CP. */
export function cpSlot(cp: i32): usize {
  return T_CP + (<usize>((<u32>cp * 0x9e3779b1) >>> 20) << 5);
}
