import { RULES } from './rules';
import { findKeys, LOOKALIKE } from './scan';

/**
 * What of a line that has not ended yet may be shown before it ends (a live log's partial row:
 * a prompt, a progress line) without ever showing a byte that the finished line redacts.
 *
 * Why it is safe. Every match of every rule contains one of the rule's keys (rules.ts), and the
 * value a rule redacts lies in the run of non-blank characters that holds the key, or after it:
 * values are runs without white space (`[^\s…]`), and the two that may hold spaces (a Digest or
 * AWS4 Authorization value, a private key block) follow their key. The one exception is a
 * private key header, which begins at `-----BEGIN`, words before its key (`PRIVATE KEY`). So of
 * a line that ends in text not seen yet, a byte can become part of a redaction only if it lies
 *  - in the line's last run of non-blank bytes (a key, or the part of a value before its key,
 *    may still arrive and extend it: `postgres://app:hunter2` before its `@db`);
 *  - in or after the run holding a key the line already has (its value may still grow);
 *  - after the start of a run that ends the line with the beginning of a key that holds a blank
 *    (`PRIVATE ` before `KEY`);
 *  - anywhere in a line holding `-----` (a key block's header or footer).
 * This function cuts the held text before the first such byte. Blanks are ASCII space and TAB
 * only (the rules' `\s` takes more characters as blanks, so runs here are never shorter).
 *
 * `bytes[0, from)` is text already emitted of the same line (context after a cut of a long line),
 * `bytes[from, end)` the held rest, which holds no LF. Returns the end of the part that may be
 * shown (`from` when none). The redacted line's output then begins with exactly that part (with
 * marker look-alikes replaced, as {@link lookalikesIn} finds them).
 */
export function showablePrefix(bytes: Uint8Array, from: number, end: number): number {
  if (end <= from || hasDashRun(bytes, end)) return from;
  let cut = end;
  while (cut > from && !isBlank(bytes[cut - 1])) cut--;
  findKeys(bytes, 0, end, (rule, start) => {
    if (rule !== LOOKALIKE) cut = Math.min(cut, runStart(bytes, start));
  });
  for (const key of BLANK_KEYS) {
    for (let k = Math.min(key.bytes.length - 1, end); k > 0; k--) {
      if (startsKey(bytes, end - k, end, key)) {
        cut = Math.min(cut, runStart(bytes, end - k));
        break;
      }
    }
  }
  return Math.max(from, cut);
}

/** Positions of the marker's look-alikes (three bytes each) in `bytes[from, end)`: they are replaced in shown text too. */
export function lookalikesIn(bytes: Uint8Array, from: number, end: number): number[] {
  const at: number[] = [];
  findKeys(bytes, from, end, (rule, start) => {
    if (rule === LOOKALIKE && start >= from && start + 3 <= end) at.push(start);
  });
  return at;
}

/** Keys that hold a blank, with whether they match in any case: a line may end inside one. */
const BLANK_KEYS = RULES.flatMap((r) =>
  r.keys
    .filter((k) => /[ \t]/.test(k))
    .map((k) => ({ bytes: Uint8Array.from(k.replace(/^\\b/, ''), (c) => c.charCodeAt(0)), caseless: r.caseless === true })),
);

function startsKey(bytes: Uint8Array, at: number, end: number, key: { bytes: Uint8Array; caseless: boolean }): boolean {
  for (let j = 0; at + j < end; j++) {
    const a = bytes[at + j];
    const b = key.bytes[j];
    if (a !== b && !(key.caseless && (a | 0x20) === (b | 0x20) && isLetter(b))) return false;
  }
  return true;
}

/** Whether `bytes[0, end)` holds five dashes in a row (the edge of a key block's header or footer). */
function hasDashRun(bytes: Uint8Array, end: number): boolean {
  let run = 0;
  for (let i = 0; i < end; i++) {
    run = bytes[i] === 0x2d ? run + 1 : 0;
    if (run === 5) return true;
  }
  return false;
}

/** Start of the run of non-blank bytes that holds `at`. */
function runStart(bytes: Uint8Array, at: number): number {
  let i = at;
  while (i > 0 && !isBlank(bytes[i - 1])) i--;
  return i;
}

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09;
}

function isLetter(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}
