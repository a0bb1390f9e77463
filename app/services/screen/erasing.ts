// Which controls erase cells, and how far: the screen engine brackets them with snapshots of its
// tag terminal (engine.ts) so that what vanished there is counted as erased, not overwritten.

/** Erasing controls: CSI finals that remove cells, modes that drop a screen, RIS and DECALN. */
const ERASING_CSI = new Set(['J', 'K', 'X', 'P', 'M', 'L', 'S', 'T', '@']);
/** Of those, the ones that only touch the cursor's line (EL, ECH, DCH, ICH). */
const LINE_CSI = new Set(['K', 'X', 'P', '@']);

/** What an erasing control can reach: nothing, the cursor's line, the screen, or everything (scrollback too). */
export const enum Reach { None = 0, Line = 1, Screen = 2, All = 3 }

/**
 * Whether bytes at `at` begin an escape sequence: ESC, or a C1 sequence introducer (CSI, OSC,
 * DCS, SOS, PM, APC) encoded in UTF-8. Not a lone C1 like ST: the emulator ignores that in
 * ground, and a zero-width character after it still joins the cell before.
 */
export function startsSequence(b: Uint8Array, at: number, end = b.length): boolean {
  if (b[at] === 0x1b) return true;
  if (b[at] !== 0xc2 || at + 1 >= end) return false;
  const c1 = b[at + 1];
  return c1 === 0x9b || c1 === 0x9d || c1 === 0x90 || c1 === 0x98 || c1 === 0x9e || c1 === 0x9f;
}

/** What a control's bytes may erase (see ERASING_CSI). */
export function erasing(b: Uint8Array, from: number, to: number): Reach {
  const n = to - from;
  const csi = b[from] === 0x9b ? from + 1 : n >= 3 && b[from] === 0x1b && b[from + 1] === 0x5b ? from + 2 : -1;
  if (csi >= 0) {
    const final = String.fromCharCode(b[to - 1]);
    if (LINE_CSI.has(final)) return Reach.Line;
    if (final === 'J') {
      // ED 3 clears the scrollback.
      for (let k = csi; k < to - 1; k++) if (b[k] === 0x33 && (k === csi || b[k - 1] === 0x3b) && (k + 1 === to - 1 || b[k + 1] === 0x3b)) return Reach.All;
      return Reach.Screen;
    }
    if (ERASING_CSI.has(final)) return Reach.Screen;
    // Leaving the alternate screen drops it; entering one may clear it.
    if ((final === 'h' || final === 'l') && b[csi] === 0x3f) return Reach.All;
    return Reach.None;
  }
  if (b[from] === 0x1b && n === 2 && b[from + 1] === 0x63) return Reach.All; // RIS
  if (b[from] === 0x1b && n === 3 && b[from + 1] === 0x23 && b[from + 2] === 0x38) return Reach.Screen; // DECALN
  return Reach.None;
}
