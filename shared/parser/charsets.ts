/**
 * Character sets as the terminal readings draw them: which glyph each shows for a printable ASCII
 * byte after designations (ESC ( 0, ESC ) A, …), locking shifts (SO, SI, LS2, LS3, …), single
 * shifts, resets and cursor save/restore. A byte is drawn as the glyph all three agree on; where
 * they disagree it is withheld. Written from each terminal's source and held to it by
 * test/shared/terminal-charsets.test.ts:
 *
 * - xterm.js 6 (InputHandler selectCharset/setgLevel/saveCursor/restoreCursor/softReset, CharsetService,
 *   data/Charsets.ts): G0–G3, GL set by SO/SI and ESC n o | } ~, DEC line drawing, UK and twelve
 *   national sets; DECSC/DECRC (ESC 7/8, CSI s/u, 1048, 1049) save and restore only the mapping in use.
 * - tmux 3.3a (input.c): G0/G1 are line drawing (ESC ( 0, ESC ) 0) or ASCII (ESC ( B, ESC ) B), SO/SI
 *   choose; other designations are ignored; DECSC/DECRC and CSI s/u save and restore all of it.
 * - libvterm 0.1.4 (state.c, encoding/*.tbl): G0–G3 from ESC ( ) * + with line drawing, UK or ASCII,
 *   GL from SO/SI and ESC n o, one-character single shifts ESC N / ESC O; DECSC does not save them
 *   and DECSTR never reaches its reset.
 */

/** What a reading draws for each printable ASCII byte in a set: a code point, or 0 for the byte itself. */
type Glyphs = Uint32Array;

function glyphs(map: Record<string, number>): Glyphs {
  const g = new Uint32Array(0x80);
  for (const [ch, cp] of Object.entries(map)) g[ch.charCodeAt(0)] = cp;
  return g;
}

/** DEC Special Graphics as xterm.js draws it (Charsets.ts CHARSETS['0']). */
const XTERM_DEC: Record<string, number> = {
  '`': 0x25c6, 'a': 0x2592, 'b': 0x2409, 'c': 0x240c, 'd': 0x240d, 'e': 0x240a, 'f': 0xb0, 'g': 0xb1, 'h': 0x2424,
  'i': 0x240b, 'j': 0x2518, 'k': 0x2510, 'l': 0x250c, 'm': 0x2514, 'n': 0x253c, 'o': 0x23ba, 'p': 0x23bb, 'q': 0x2500,
  'r': 0x23bc, 's': 0x23bd, 't': 0x251c, 'u': 0x2524, 'v': 0x2534, 'w': 0x252c, 'x': 0x2502, 'y': 0x2264, 'z': 0x2265,
  '{': 0x3c0, '|': 0x2260, '}': 0xa3, '~': 0xb7,
};
/** tmux's ACS table (tty-acs.c) adds arrows and a block for + , - . 0. */
const TMUX_DEC = glyphs({ ...XTERM_DEC, '+': 0x2192, ',': 0x2190, '-': 0x2191, '.': 0x2193, '0': 0x25ae });
/** libvterm's DECdrawing.tbl draws y and z as slanted less/greater-or-equal. */
const VTERM_DEC = glyphs({ ...XTERM_DEC, 'y': 0x2a7d, 'z': 0x2a7e });
const UK = glyphs({ '#': 0xa3 });

/**
 * xterm.js's national sets, by final byte: the bytes each redraws. No other reading knows them, so
 * the glyph never matters (it is never agreed on): a marker stands for it.
 */
const XTERM_NATIONAL: Record<string, string> = {
  '4': '#@[\\]{|}~', 'C': '[\\]^`{|}~', '5': '[\\]^`{|}~', 'R': '#@[\\]{|}~', 'Q': '@[\\]^`{|}~', 'K': '@[\\]{|}~',
  'Y': '#@[\\]`{|}~', 'E': '@[\\]^`{|}~', '6': '@[\\]^`{|}~', 'Z': '#@[\\]{|}', 'H': '@[\\]^`{|}~', '7': '@[\\]^`{|}~',
  '=': '#@[\\]^_`{|}~',
};
const XTERM_ONLY = 0x110000;

/** xterm.js's glyph tables by final byte (0 or absent: US ASCII). */
const XTERM_SETS: (Glyphs | null)[] = [];
XTERM_SETS[0x30] = glyphs(XTERM_DEC);
XTERM_SETS[0x41] = UK;
for (const [final, bytes] of Object.entries(XTERM_NATIONAL)) {
  XTERM_SETS[final.charCodeAt(0)] = glyphs(Object.fromEntries([...bytes].map((ch) => [ch, XTERM_ONLY])));
}
const XTERM_KNOWN = (final: number): boolean => final === 0x42 || XTERM_SETS[final] !== undefined;
/** xterm.js: the G set each designating intermediate selects ('/' is accepted and ignored). */
const XTERM_G: Record<number, number> = { 0x28: 0, 0x29: 1, 0x2a: 2, 0x2b: 3, 0x2d: 1, 0x2e: 2 };

const enum Vterm { Ascii = 0, Dec = 1, Uk = 2 }
const VTERM_SETS: (Glyphs | null)[] = [null, VTERM_DEC, UK];

export class Charsets {
  // xterm.js: G0–G3 as final bytes (0: ASCII), the GL level, the mapping in use, the saved mapping.
  private readonly xg = new Uint8Array(4);
  private xlevel = 0;
  private xcur = 0;
  private xsaved = 0;
  // tmux: G0 and G1 line drawing or not, SO in effect, and the saved copy of the three.
  private tg0 = false;
  private tg1 = false;
  private tso = false;
  private saved: [boolean, boolean, boolean] = [false, false, false];
  // libvterm: G0–G3, GL, a single shift waiting for the next character.
  private readonly vg = new Uint8Array(4);
  private vgl = 0;
  private vsingle = 0;

  /** Some reading draws some printable ASCII byte otherwise than as itself, or a single shift waits. */
  get active(): boolean {
    return this.xcur !== 0 || (this.tso ? this.tg1 : this.tg0) || this.vg[this.vgl] !== Vterm.Ascii || this.vsingle !== 0;
  }

  /** Nothing differs from a fresh terminal (saved state included): what a fresh parser assumes. */
  get pristine(): boolean {
    return !this.active && this.xg.every((g) => g === 0) && this.xlevel === 0 && this.xsaved === 0 && !this.tg1
      && !this.saved.some((s) => s) && this.vg.every((g) => g === Vterm.Ascii);
  }

  /**
   * The glyph all readings draw for printable ASCII `b` (`b` itself when none redraws it), or -1
   * when they disagree. Consumes a single shift.
   */
  glyph(b: number): number {
    const x = this.xcur === 0 ? 0 : (XTERM_SETS[this.xcur] as Glyphs)[b];
    const t = (this.tso ? this.tg1 : this.tg0) ? TMUX_DEC[b] : 0;
    const set = VTERM_SETS[this.vg[this.vsingle !== 0 ? this.vsingle : this.vgl]];
    this.vsingle = 0;
    const v = set === null ? 0 : set[b];
    if (x !== t || t !== v) return -1;
    return x === 0 ? b : x;
  }

  /** A character that is not printable ASCII: whether the readings still agree on it (a single shift would redraw it in libvterm). */
  other(): boolean {
    const agreed = this.vsingle === 0;
    this.vsingle = 0;
    return agreed;
  }

  /** ESC with one intermediate `inter` and final `final` (designations, ESC % @/G). */
  escape(inter: number, final: number): void {
    if (inter === 0x25) {
      if (final === 0x40 || final === 0x47) {
        this.xlevel = 0;
        this.xg[0] = 0;
        this.xcur = 0;
      }
      return;
    }
    const g = XTERM_G[inter];
    if (g !== undefined && XTERM_KNOWN(final)) {
      this.xg[g] = final === 0x42 ? 0 : final;
      if (this.xlevel === g) this.xcur = this.xg[g];
    }
    if ((inter === 0x28 || inter === 0x29) && (final === 0x30 || final === 0x42)) {
      if (inter === 0x28) this.tg0 = final === 0x30;
      else this.tg1 = final === 0x30;
    }
    if (inter >= 0x28 && inter <= 0x2b && (final === 0x30 || final === 0x41 || final === 0x42)) {
      this.vg[inter - 0x28] = final === 0x30 ? Vterm.Dec : final === 0x41 ? Vterm.Uk : Vterm.Ascii;
    }
  }

  /** ESC with a final and no intermediate: shifts, single shifts, RIS, DECSC/DECRC. */
  escapeFinal(final: number): void {
    switch (final) {
      case 0x6e: this.lock(2, 2); break; // LS2
      case 0x6f: this.lock(3, 3); break; // LS3
      case 0x7e: this.lock(1, -1); break; // LS1R: xterm.js takes it for GL
      case 0x7d: this.lock(2, -1); break; // LS2R
      case 0x7c: this.lock(3, -1); break; // LS3R
      case 0x4e: this.vsingle = 2; break; // SS2
      case 0x4f: this.vsingle = 3; break; // SS3
      case 0x63: this.reset(); break; // RIS
      case 0x37: this.save(); break; // DECSC
      case 0x38: this.restore(); break; // DECRC
      default:
    }
  }

  /** SO (1) or SI (0). */
  shift(g: number): void {
    this.lock(g, g);
    this.tso = g === 1;
  }

  /**
   * A CSI that saves, restores or resets sets: CSI s / CSI u (save/restore cursor), DECSTR (CSI ! p),
   * DECSET/DECRST 1048 and 1049 (save/restore as DECSC/DECRC in xterm.js).
   */
  csi(priv: number, inter: number, final: number, first: number): void {
    if (priv === 0 && inter === 0 && final === 0x73) this.save();
    else if (priv === 0 && inter === 0 && final === 0x75) this.restore();
    else if (priv === 0 && inter === 0x21 && final === 0x70) {
      // DECSTR: xterm.js resets its sets. tmux does not know it; libvterm 0.1.4 looks for it with
      // `!` as a leader, which its parser never collects (it is an intermediate), so neither does it.
      this.xg.fill(0);
      this.xlevel = 0;
      this.xcur = 0;
      this.xsaved = 0;
    } else if (priv === 0x3f && (first === 1048 || first === 1049)) {
      if (final === 0x68) this.xsaved = this.xcur;
      else if (final === 0x6c) this.xcur = this.xsaved;
    }
  }

  private lock(xtermLevel: number, vtermLevel: number): void {
    this.xlevel = xtermLevel;
    this.xcur = this.xg[xtermLevel];
    if (vtermLevel >= 0) this.vgl = vtermLevel;
  }

  private save(): void {
    this.xsaved = this.xcur;
    this.saved = [this.tg0, this.tg1, this.tso];
  }

  private restore(): void {
    this.xcur = this.xsaved;
    [this.tg0, this.tg1, this.tso] = this.saved;
  }

  private reset(): void {
    this.xg.fill(0);
    this.xlevel = 0;
    this.xcur = 0;
    this.xsaved = 0;
    this.tg0 = false;
    this.tg1 = false;
    this.tso = false;
    this.saved = [false, false, false];
    this.vg.fill(Vterm.Ascii);
    this.vgl = 0;
    this.vsingle = 0;
  }
}
