import type { BridgeErrorCode, BridgeWire } from '../../../shared/bridge/contract';

/**
 * A refusal or failure a bridge call reports to its caller. The message is one line of plain text
 * that never holds artifact bytes (it names methods, ids, offsets and limits only).
 */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The wire form of a failure: `BridgeError`s keep their code; anything else is 'internal'. */
export function errorWire(err: unknown): BridgeWire<never> {
  if (err instanceof BridgeError) return { ok: false, code: err.code, message: oneLine(err.message) };
  return { ok: false, code: 'internal', message: 'internal error in main (see the main process log)' };
}

/** Collapses a message to one bounded line. */
export function oneLine(s: string, max = 500): string {
  const flat = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Text for an audit detail: printable ASCII only (others as `\uXXXX`), at most `max` characters.
 * Audit details are metadata; a human's reason is kept this way, never raw.
 */
export function auditText(s: string, max = 200): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const piece = cp >= 0x20 && cp <= 0x7e ? ch : cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
    if (out.length + piece.length > max) return `${out.slice(0, max - 1)}~`;
    out += piece;
  }
  return out;
}
