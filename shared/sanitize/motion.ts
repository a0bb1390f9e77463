import { SpanClass } from '../parser/span-class';

/** What a control does to the cursor, as far as the sanitized text must show it. */
export const enum Motion {
  None = 0,
  /** Moves to another line (or moves the line): newline mode makes it one line break. */
  Line = 1,
  /** Moves along the line: newline mode makes it one space, overwrite mode moves the cursor. */
  Column = 2,
  /** Overwrite mode: an erase, insert or delete within the line (EL, ECH, DCH, ICH). */
  Edit = 3,
}

/**
 * Controls that move the cursor to another line, or move the line under it, keyed by meaning (the
 * parser's fixed meaning strings identify the plain forms: a private marker or intermediate gives
 * another meaning). Decided list; see the README's "Line-moving controls".
 */
const BY_MEANING = new Map<string, Motion>([
  // CSI
  ['CUU cursor up', Motion.Line], ['CUD cursor down', Motion.Line], ['CNL cursor next line', Motion.Line],
  ['CPL cursor previous line', Motion.Line], ['CUP cursor position', Motion.Line], ['HVP cursor position', Motion.Line],
  ['VPA line absolute', Motion.Line], ['VPR line relative', Motion.Line], ['IL insert lines', Motion.Line],
  ['DL delete lines', Motion.Line], ['SU scroll up', Motion.Line], ['SD scroll down', Motion.Line],
  ['DECSTBM set scroll region', Motion.Line], ['SCORC restore cursor', Motion.Line],
  // Modes that home the cursor or switch screens (what was written on the alternate screen is gone
  // when it is left), restores of a saved cursor, and resets.
  ['DECSET 6 origin mode', Motion.Line], ['DECRST 6 origin mode', Motion.Line],
  ['DECSET 3 132-column mode', Motion.Line], ['DECRST 3 132-column mode', Motion.Line],
  ['DECSET 47 alternate screen', Motion.Line], ['DECRST 47 alternate screen', Motion.Line],
  ['DECSET 1047 alternate screen', Motion.Line], ['DECRST 1047 alternate screen', Motion.Line],
  ['DECSET 1049 alternate screen with saved cursor', Motion.Line], ['DECRST 1049 alternate screen with saved cursor', Motion.Line],
  ['DECRST 1048 save cursor', Motion.Line], ['DECSTR soft reset', Motion.Line],
  // libvterm reads every CSI s as DECSLRM (set left/right margins), which homes the cursor.
  ['SCOSC save cursor', Motion.Line],
  ['CUF cursor forward', Motion.Column], ['CUB cursor back', Motion.Column], ['CHA cursor column', Motion.Column],
  ['HPA column absolute', Motion.Column], ['HPR column relative', Motion.Column], ['CHT tab forward', Motion.Column],
  ['CBT tab backward', Motion.Column],
  ['EL erase line (to end)', Motion.Edit], ['EL erase line (to start)', Motion.Edit], ['EL erase line (all)', Motion.Edit],
  ['EL erase line (scrollback)', Motion.Edit], ['ECH erase characters', Motion.Edit], ['DCH delete characters', Motion.Edit],
  ['ICH insert characters', Motion.Edit],
  // ESC
  ['IND index', Motion.Line], ['NEL next line', Motion.Line], ['RI reverse index (scroll down)', Motion.Line],
  ['DECRC restore cursor', Motion.Line], ['RIS full reset', Motion.Line], ['cursor to lower left', Motion.Line],
  ['DECALN screen alignment test (fill with E)', Motion.Line],
  ['DECBI back index', Motion.Column], ['DECFI forward index', Motion.Column],
]);

/** CSI final bytes that can have a motion: everything else (SGR above all) skips the map. */
export const CSI_FINALS = new Uint8Array(128);
for (const f of '@ABCDEFGHIKLMPSTXZ`adefruhlps') CSI_FINALS[f.charCodeAt(0)] = 1;
const ESC_FINALS = new Uint8Array(128);
for (const f of 'DEM8cF69') ESC_FINALS[f.charCodeAt(0)] = 1;

/** The motion of a removed span (class, meaning and code as the parser reports them). */
export function motionOf(cls: SpanClass, meaning: string, code: number): Motion {
  switch (cls) {
    case SpanClass.C0:
      // VT and FF feed a line on every terminal.
      return code === 0x0b || code === 0x0c ? Motion.Line : Motion.None;
    case SpanClass.C1:
      // C1 as U+0080–U+009F: IND, NEL, PLD, PLU, RI move to another line; HTJ tabs.
      if (code === 0x84 || code === 0x85 || code === 0x8b || code === 0x8c || code === 0x8d) return Motion.Line;
      return code === 0x89 ? Motion.Column : Motion.None;
    case SpanClass.Csi:
      return code < 0x80 && CSI_FINALS[code] === 1 ? BY_MEANING.get(meaning) ?? Motion.None : Motion.None;
    case SpanClass.Esc:
      return code < 0x80 && ESC_FINALS[code] === 1 ? BY_MEANING.get(meaning) ?? Motion.None : Motion.None;
    default:
      return Motion.None;
  }
}
