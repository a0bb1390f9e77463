/**
 * Character sets as the terminal readings draw them: which glyph each shows for a printable ASCII
 * byte after designations (ESC ( 0, ESC ) A, …), locking shifts (SO, SI, LS2, LS3, …), single
 * shifts, resets and cursor save/restore. A byte is drawn as the glyph all three agree on; where
 * they disagree it is withheld. Written from each terminal's source and held to it by
 * test/shared/terminal-charsets.test.ts:
 *
 * - xterm.js 6 (InputHandler selectCharset/setgLevel/saveCursor/restoreCursor/softReset/setModePrivate,
 *   CharsetService, Buffer, data/Charsets.ts): G0–G3, GL set by SO/SI and ESC n o | } ~, DEC line
 *   drawing, UK and twelve national sets; DECSC/DECRC (ESC 7/8, CSI s/u, 1048, 1049) save and
 *   restore only the mapping in use, each screen buffer (normal, alternate: 47, 1047, 1049) in its
 *   own slot; DECSET 2 designates ASCII to G0–G3; every mode of a DECSET/DECRST acts, in order.
 * - tmux 3.3a (input.c): G0/G1 are line drawing (ESC ( 0, ESC ) 0) or ASCII (ESC ( B, ESC ) B), SO/SI
 *   choose; other designations are ignored; DECSC/DECRC and CSI s/u save and restore all of it —
 *   but tmux drops a whole CSI whose parameters it cannot hold (see {@link Charsets.csi}).
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
/** Every byte some xterm.js set redraws: what an unsure mapping ({@link UNSURE}) may redraw. */
const XTERM_ANY = new Uint32Array(0x80);
for (const set of XTERM_SETS) if (set) for (let b = 0; b < 0x80; b++) if (set[b] !== 0) XTERM_ANY[b] = XTERM_ONLY;
/** A mapping (or saved slot) that is one of two, which one unknown: deny by default. */
const UNSURE = 0xff;
/** Which xterm.js screen buffer is active: not known to a parser until it sees a switch. */
const enum Screen { Normal = 0, Alternate = 1, Unknown = -1 }
/** xterm.js: the G set each designating intermediate selects ('/' is accepted and ignored). */
const XTERM_G: Record<number, number> = { 0x28: 0, 0x29: 1, 0x2a: 2, 0x2b: 3, 0x2d: 1, 0x2e: 2 };

const enum Vterm { Ascii = 0, Dec = 1, Uk = 2 }
const VTERM_SETS: (Glyphs | null)[] = [null, VTERM_DEC, UK];

export class Charsets {
  // xterm.js: G0–G3 as final bytes (0: ASCII), the GL level, the mapping in use (UNSURE: either of
  // two), the saved mapping of each buffer and which buffer is active. While the buffer is Unknown
  // (as to a fresh parser: nothing is known before the first switch), slot 0 is the active one's
  // and the other still holds ASCII.
  private readonly xg = new Uint8Array(4);
  private xlevel = 0;
  private xcur = 0;
  private readonly xsaved = new Uint8Array(2);
  private xbuffer: Screen = Screen.Unknown;
  // tmux: G0 and G1 line drawing or not, SO in effect, and the saved copy of the three; unsure
  // when a CSI s/u tmux may have dropped left the current or saved copy one of two.
  private tg0 = false;
  private tg1 = false;
  private tso = false;
  private saved: [boolean, boolean, boolean] = [false, false, false];
  private tunsure = false;
  private tsavedUnsure = false;
  // libvterm: G0–G3, GL, a single shift waiting for the next character.
  private readonly vg = new Uint8Array(4);
  private vgl = 0;
  private vsingle = 0;

  /** Some reading draws some printable ASCII byte otherwise than as itself, or a single shift waits. */
  get active(): boolean {
    return this.xcur !== 0 || (this.tso ? this.tg1 : this.tg0) || this.tunsure || this.vg[this.vgl] !== Vterm.Ascii || this.vsingle !== 0;
  }

  /** Nothing differs from a fresh terminal (saved state included): what a fresh parser assumes. */
  get pristine(): boolean {
    return !this.active && this.xg.every((g) => g === 0) && this.xlevel === 0 && this.xsaved[0] === 0 && this.xsaved[1] === 0
      && !this.tg1 && !this.saved.some((s) => s) && !this.tsavedUnsure && this.vg.every((g) => g === Vterm.Ascii);
  }

  /**
   * The glyph all readings draw for printable ASCII `b` (`b` itself when none redraws it), or -1
   * when they disagree. Consumes a single shift.
   */
  glyph(b: number): number {
    // An unsure mapping (one of two) may redraw whatever any of its sets redraws: never agreed on.
    const x = this.xcur === 0 ? 0 : this.xcur === UNSURE ? XTERM_ANY[b] : (XTERM_SETS[this.xcur] as Glyphs)[b];
    const t = this.tunsure ? (TMUX_DEC[b] === 0 ? 0 : XTERM_ONLY) : (this.tso ? this.tg1 : this.tg0) ? TMUX_DEC[b] : 0;
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
      case 0x37: this.save(true); break; // DECSC
      case 0x38: this.restore(true); break; // DECRC
      default:
    }
    this.forgetBuffer();
  }

  /** SO (1) or SI (0). */
  shift(g: number): void {
    this.lock(g, g);
    this.tso = g === 1;
  }

  /**
   * A CSI that saves, restores or resets sets: CSI s / CSI u (save/restore cursor), DECSTR (CSI ! p),
   * and each of the first `count` modes in `modes` of a DECSET/DECRST: 2 (xterm.js: ASCII to G0–G3),
   * 1048 and 1049 (save/restore as DECSC/DECRC), 47, 1047 and 1049 (the buffer switches).
   * `tmuxUnsure`: tmux may have dropped the whole CSI (input.c keeps 63 parameter bytes and 23
   * parameters, each at most INT_MAX, and drops a CSI past them; xterm.js takes every one).
   */
  csi(priv: number, inter: number, final: number, modes: Int32Array, count: number, tmuxUnsure: boolean): void {
    if (priv === 0 && inter === 0 && final === 0x73) this.save(!tmuxUnsure);
    else if (priv === 0 && inter === 0 && final === 0x75) this.restore(!tmuxUnsure);
    else if (priv === 0 && inter === 0x21 && final === 0x70) {
      // DECSTR: xterm.js resets its sets. tmux does not know it; libvterm 0.1.4 looks for it with
      // `!` as a leader, which its parser never collects (it is an intermediate), so neither does it.
      this.xg.fill(0);
      this.xlevel = 0;
      this.xcur = 0;
      this.xsaved[this.xbuffer === Screen.Alternate ? 1 : 0] = 0;
    } else if (priv === 0x3f && (final === 0x68 || final === 0x6c)) {
      const set = final === 0x68;
      for (let k = 0; k < count; k++) {
        const mode = modes[k];
        if (mode === 2 && set) {
          this.xg.fill(0);
          this.xcur = 0;
        } else if (mode === 1048) {
          if (set) this.xtermSave();
          else this.xtermRestore();
        } else if (mode === 1049 || mode === 1047 || mode === 47) {
          if (mode === 1049 && set) this.xtermSave();
          this.switchBuffer(set ? Screen.Alternate : Screen.Normal);
          if (mode === 1049 && !set) this.xtermRestore();
        }
      }
    }
    this.forgetBuffer();
  }

  /**
   * xterm.js switches to buffer `to`. From an unknown buffer: the slot written meanwhile was either
   * `to`'s or the other's, and the other held ASCII: both are one of the two unless it is ASCII too.
   */
  private switchBuffer(to: Screen): void {
    if (this.xbuffer === Screen.Unknown && this.xsaved[0] !== 0) this.xsaved.fill(UNSURE);
    this.xbuffer = to;
  }

  /**
   * Nothing saved, nothing in use: which buffer is active no longer changes anything a fresh parser
   * would not see alike, and a fresh parser does not know it — so neither does this one (what
   * Parser.atRest promises).
   */
  private forgetBuffer(): void {
    if (this.xbuffer !== Screen.Unknown && this.xsaved[0] === 0 && this.xsaved[1] === 0) this.xbuffer = Screen.Unknown;
  }

  private xtermSave(): void {
    this.xsaved[this.xbuffer === Screen.Alternate ? 1 : 0] = this.xcur;
  }

  private xtermRestore(): void {
    this.xcur = this.xsaved[this.xbuffer === Screen.Alternate ? 1 : 0];
  }

  private lock(xtermLevel: number, vtermLevel: number): void {
    this.xlevel = xtermLevel;
    this.xcur = this.xg[xtermLevel];
    if (vtermLevel >= 0) this.vgl = vtermLevel;
  }

  /** DECSC: xterm.js saves the mapping in use; tmux all of its state, unless (`tmuxActs` false) it may have dropped the CSI. */
  private save(tmuxActs: boolean): void {
    this.xtermSave();
    const now: [boolean, boolean, boolean] = [this.tg0, this.tg1, this.tso];
    if (tmuxActs) {
      this.saved = now;
      this.tsavedUnsure = this.tunsure;
    } else if (this.tunsure || now.some((v, i) => v !== this.saved[i])) {
      this.tsavedUnsure = true;
    }
  }

  /** DECRC: as {@link save}, back. */
  private restore(tmuxActs: boolean): void {
    this.xtermRestore();
    if (tmuxActs) {
      [this.tg0, this.tg1, this.tso] = this.saved;
      this.tunsure = this.tsavedUnsure;
    } else if (this.tsavedUnsure || this.saved.some((v, i) => v !== [this.tg0, this.tg1, this.tso][i])) {
      this.tunsure = true;
    }
  }

  private reset(): void {
    this.xg.fill(0);
    this.xlevel = 0;
    this.xcur = 0;
    this.xsaved.fill(0);
    this.xbuffer = Screen.Unknown;
    this.tunsure = false;
    this.tsavedUnsure = false;
    this.tg0 = false;
    this.tg1 = false;
    this.tso = false;
    this.saved = [false, false, false];
    this.vg.fill(Vterm.Ascii);
    this.vgl = 0;
    this.vsingle = 0;
  }
}
