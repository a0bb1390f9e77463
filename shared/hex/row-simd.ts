import { ROW_SIMD_WASM } from './row-simd.generated';

/*
 * The WebAssembly SIMD row writer (row-simd.wat) behind HexRowWriter: an instance with its own
 * memory, where the caller's input and output buffers can live (see {@link RowSimd.allocate}) so
 * a row is written without copying anything in or out.
 */

/** The part of the WebAssembly API used here (shared/ is compiled without DOM or Node types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const PAGE = 1 << 16;
/** Bytes 0..384 of the memory: caret text (2 bytes) and length of each ASCII byte. */
const TABLES = 384;
/** Bytes 1024..9216: a bit per BMP code point, set once it was shown as itself (see row-simd.wat). */
const SHOWN_AT = 1024;
const SHOWN_BYTES = 0x10000 / 8;
/** Where allocations start: after the tables. */
const ARENA_START = 16384;

/** A SIMD row writer and the memory it reads and writes. */
export interface RowSimd {
  /**
   * The instance's memory (grown once, when created, so views stay valid). A plain field: the
   * WebAssembly.Memory `buffer` accessor is slow.
   */
  readonly buffer: ArrayBuffer;
  /**
   * A bit per BMP code point (bit `cp & 7` of byte `cp >> 3`): set by the JavaScript writer once
   * it showed the character as itself, so SIMD may copy it from then on. Never set for one it
   * writes as notation.
   */
  readonly shown: Uint8Array;
  /**
   * Writes up to `count` rows of 16 bytes from memory offset `inAt` (stream offset `at`,
   * `at + count * 16 <= 2^32`) at `outAt`, stopping before a row it leaves to JavaScript (see
   * row-simd.wat: anything but ASCII and 2- or 3-byte characters in {@link shown}); returns
   * `end + rows * 2^32`: where what it wrote ends, and how many rows it wrote.
   */
  readonly rows: (inAt: number, count: number, outAt: number, at: number) => number;
  /**
   * Rows as {@link rows} writes them, each followed by the annotation lines a plan gives for the
   * spans that start in it (see row-simd.wat `noted`; all addresses are memory offsets). Stops
   * before a row {@link rows} leaves to JavaScript or the plan marks as JavaScript's; returns as
   * {@link rows}.
   */
  readonly noted: (inAt: number, count: number, outAt: number, at: number, planAt: number, entries: number, poolAt: number, dirAt: number, lengthWordsAt: number) => number;
  /**
   * A zeroed byte array of `size` in the memory, or null once {@link ARENA_BYTES} are used up.
   * Rows whose input and output are both in the memory are written by SIMD.
   */
  allocate(size: number): Uint8Array | null;
}

/** Bytes the arena of an instance may hand out (reserved when it is created). */
export const ARENA_BYTES = 8 << 20;

let compiled: object | null | undefined;

/** Decodes standard base64 (no Node or DOM API in shared/). */
function fromBase64(text: string): Uint8Array {
  const value = new Uint8Array(128);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let k = 0; k < 64; k++) value[alphabet.charCodeAt(k)] = k;
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let k = 0; k < clean.length; k++) {
    acc = (acc << 6) | value[clean.charCodeAt(k)];
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  return out;
}

/**
 * A new SIMD row writer whose caret tables are `caretPair` (the two bytes of each ASCII byte's
 * caret text, little-endian) and `caretLength`; null where WebAssembly or its SIMD is missing.
 */
export function createRowSimd(caretPair: Uint16Array, caretLength: Uint8Array): RowSimd | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (compiled === undefined) {
    try {
      compiled = api ? new api.Module(fromBase64(ROW_SIMD_WASM)) : null;
    } catch {
      compiled = null; // no SIMD (an old engine): the JavaScript rows serve
    }
  }
  if (!compiled || !api) return null;
  const { exports } = new api.Instance(compiled, {});
  const memory = exports.memory as WasmMemory;
  // Grown once, before any view is made: growing later would detach the views handed out.
  memory.grow(Math.ceil((ARENA_START + ARENA_BYTES) / PAGE) - memory.buffer.byteLength / PAGE);
  const buffer = memory.buffer;
  const mem = new Uint8Array(buffer, 0, TABLES);
  for (let b = 0; b < 0x80; b++) {
    mem[2 * b] = caretPair[b] & 255;
    mem[2 * b + 1] = caretPair[b] >> 8;
    mem[256 + b] = caretLength[b];
  }
  let next = ARENA_START;
  const simd: RowSimd = {
    buffer,
    shown: new Uint8Array(buffer, SHOWN_AT, SHOWN_BYTES),
    rows: exports.rows as RowSimd['rows'],
    noted: exports.noted as RowSimd['noted'],
    allocate(size: number): Uint8Array | null {
      if (next + size > ARENA_START + ARENA_BYTES) return null;
      const view = new Uint8Array(buffer, next, size);
      next += (size + 63) & ~63;
      return view;
    },
  };
  return simd;
}
