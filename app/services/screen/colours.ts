// Colours as a terminal draws them, for the screen engine's `same_colour` finding: text drawn in
// (nearly) its own background colour is not seen, however the two colours were written (`30` on
// `48;5;0`, `90` on `48;5;8`, `38;5;196` on `48;2;255;0;0`, a palette entry changed by OSC 4 to
// match, the default colours changed by OSC 10/11, black on the default black background).
//
// Every cell colour is resolved to RGB with the palette in force at the end of the input (a
// palette change recolours the cells already drawn, as on a terminal). The palette is xterm's
// 256 colours (16 system colours, the 6x6x6 cube, 24 greys) with a dark theme's defaults: light
// grey text on black, the look of most terminals out of the box. Bold text in one of the first 8
// colours is drawn in its bright variant (xterm.js's drawBoldTextInBrightColors, on by default).

/** Cells whose colours have less contrast than this ratio (WCAG 2; 1 is equal) are not seen. */
export const MIN_CONTRAST = 1.2;

/** xterm's system colours 0–15. */
const SYSTEM = [
  0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
  0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
];
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255];
const DEFAULT_FG = 0xe5e5e5;
const DEFAULT_BG = 0x000000;

/** The 256-colour palette as xterm defines it. */
function basePalette(): Uint32Array {
  const p = new Uint32Array(256);
  p.set(SYSTEM);
  for (let i = 0; i < 216; i++) {
    const r = CUBE_LEVELS[Math.floor(i / 36)];
    const g = CUBE_LEVELS[Math.floor(i / 6) % 6];
    const b = CUBE_LEVELS[i % 6];
    p[16 + i] = (r << 16) | (g << 8) | b;
  }
  for (let i = 0; i < 24; i++) {
    const v = 8 + 10 * i;
    p[232 + i] = (v << 16) | (v << 8) | v;
  }
  return p;
}

const BASE = basePalette();

/**
 * An X11 colour specification as OSC 4/10/11 carry it: `rgb:R/G/B` (1–4 hex digits a channel,
 * scaled to 8 bits) or `#RGB`, `#RRGGBB`, `#RRRGGGBBB`, `#RRRRGGGGBBBB`. Null for anything else
 * (a name, or `?`, a query).
 */
export function parseColour(spec: string): number | null {
  const s = spec.trim().toLowerCase();
  let m = /^rgb:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})$/.exec(s);
  if (m) return (scale(m[1]) << 16) | (scale(m[2]) << 8) | scale(m[3]);
  m = /^#([0-9a-f]+)$/.exec(s);
  if (!m || m[1].length % 3 !== 0 || m[1].length > 12) return null;
  const n = m[1].length / 3;
  // `#` forms keep the high bits: #RGB is R0G0B0, #RRRGGGBBB drops the low digit.
  const channel = (k: number): number => Number.parseInt(m![1].slice(k * n, k * n + n).padEnd(2, '0').slice(0, 2), 16);
  return (channel(0) << 16) | (channel(1) << 8) | channel(2);
}

/** One `rgb:` channel of 1–4 hex digits to 8 bits (`f` is 255, `80` 128, `ffff` 255). */
function scale(hex: string): number {
  const max = 16 ** hex.length - 1;
  return Math.round((Number.parseInt(hex, 16) * 255) / max);
}

/** The colours a terminal draws with, as OSC 4, 10, 11, 104, 110 and 111 change them. */
export class Palette {
  private readonly colours = Uint32Array.from(BASE);
  private fg = DEFAULT_FG;
  private bg = DEFAULT_BG;

  /** An OSC `ident` with payload `data` (after `ident;`): applies what sets or resets a colour. */
  osc(ident: number, data: string): void {
    const parts = data.split(';');
    switch (ident) {
      case 4:
        for (let k = 0; k + 1 < parts.length; k += 2) {
          const index = Number(parts[k]);
          const rgb = parseColour(parts[k + 1]);
          if (Number.isInteger(index) && index >= 0 && index < 256 && rgb !== null) this.colours[index] = rgb;
        }
        break;
      case 10:
      case 11: {
        // OSC 10 may carry the next dynamic colours too: 10;fg;bg.
        for (let k = 0; k < parts.length && ident + k <= 11; k++) {
          const rgb = parseColour(parts[k]);
          if (rgb === null) continue;
          if (ident + k === 10) this.fg = rgb;
          else this.bg = rgb;
        }
        break;
      }
      case 104:
        if (data === '') this.colours.set(BASE);
        for (const p of parts) {
          const index = Number(p);
          if (p !== '' && Number.isInteger(index) && index >= 0 && index < 256) this.colours[index] = BASE[index];
        }
        break;
      case 110:
        this.fg = DEFAULT_FG;
        break;
      case 111:
        this.bg = DEFAULT_BG;
        break;
      default:
    }
  }

  /** The RGB of a cell's foreground or background as drawn. */
  resolve(cell: CellColours, foreground: boolean): number {
    if (foreground ? cell.isFgDefault() : cell.isBgDefault()) return foreground ? this.fg : this.bg;
    const value = foreground ? cell.getFgColor() : cell.getBgColor();
    if (foreground ? cell.isFgRGB() : cell.isBgRGB()) return value & 0xffffff;
    const bright = foreground && cell.isBold() !== 0 && value < 8 ? value + 8 : value;
    return this.colours[bright & 0xff];
  }

  /**
   * Whether the cell's text is drawn in (nearly) its background colour (inverse swaps the two, so
   * equal stays equal). Dim (SGR 2) text is drawn at half opacity over its background (xterm.js's
   * renderers): `2;38;5;236` on black is drawn as #181818, not #303030.
   */
  sameColour(cell: CellColours): boolean {
    let fg = this.resolve(cell, true);
    let bg = this.resolve(cell, false);
    if ((cell.isInverse?.() ?? 0) !== 0) [fg, bg] = [bg, fg];
    if ((cell.isDim?.() ?? 0) !== 0) fg = halfway(fg, bg);
    return contrast(fg, bg) < MIN_CONTRAST;
  }
}

/** The part of xterm.js's IBufferCell the resolution reads. */
export interface CellColours {
  isFgDefault(): boolean;
  isBgDefault(): boolean;
  isFgRGB(): boolean;
  isBgRGB(): boolean;
  getFgColor(): number;
  getBgColor(): number;
  isBold(): number;
  isDim?(): number;
  isInverse?(): number;
}

/** The colour halfway between two RGB colours, channel by channel. */
function halfway(a: number, b: number): number {
  let out = 0;
  for (const shift of [16, 8, 0]) out |= Math.round((((a >> shift) & 0xff) + ((b >> shift) & 0xff)) / 2) << shift;
  return out;
}

/** WCAG 2 contrast ratio of two RGB colours (1 when equal, 21 for black on white). */
export function contrast(a: number, b: number): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function luminance(rgb: number): number {
  const lin = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin((rgb >> 16) & 0xff) + 0.7152 * lin((rgb >> 8) & 0xff) + 0.0722 * lin(rgb & 0xff);
}
