import { isUndrawn } from './invisible';

/**
 * Human-readable meanings of controls and sequences. Every string here is a constant from these
 * tables, never built from input bytes, so meanings are safe to print and form a bounded key set
 * for report counters (an attacker cannot mint new keys).
 */

const C0_NAMES = [
  'NUL null', 'SOH start of heading', 'STX start of text', 'ETX end of text', 'EOT end of transmission',
  'ENQ enquiry (answerback request)', 'ACK acknowledge', 'BEL bell', 'BS backspace', 'HT tab',
  'LF line feed', 'VT vertical tab', 'FF form feed', 'CR carriage return', 'SO shift out (G1 charset)',
  'SI shift in (G0 charset)', 'DLE data link escape', 'DC1 device control 1 (XON)', 'DC2 device control 2',
  'DC3 device control 3 (XOFF)', 'DC4 device control 4', 'NAK negative acknowledge', 'SYN synchronous idle',
  'ETB end of transmission block', 'CAN cancel', 'EM end of medium', 'SUB substitute', 'ESC escape (lone)',
  'FS file separator', 'GS group separator', 'RS record separator', 'US unit separator',
];

const C1_NAMES = [
  'PAD padding character', 'HOP high octet preset', 'BPH break permitted here', 'NBH no break here',
  'IND index', 'NEL next line', 'SSA start of selected area', 'ESA end of selected area',
  'HTS tab set', 'HTJ tab with justification', 'VTS line tab set', 'PLD partial line down',
  'PLU partial line up', 'RI reverse index', 'SS2 single shift 2', 'SS3 single shift 3',
  'DCS device control string', 'PU1 private use 1', 'PU2 private use 2', 'STS set transmit state',
  'CCH cancel character', 'MW message waiting', 'SPA start of protected area', 'EPA end of protected area',
  'SOS start of string', 'SGCI single graphic character introducer', 'SCI single character introducer',
  'CSI control sequence introducer', 'ST string terminator (stray)', 'OSC operating system command',
  'PM privacy message', 'APC application program command',
];

/** Meaning of a C0 control (0x00–0x1F) or DEL (0x7F). */
export function c0Meaning(code: number): string {
  return code === 0x7f ? 'DEL delete' : C0_NAMES[code] ?? 'C0 control';
}

/** Meaning of a C1 control (0x80–0x9F). */
export function c1Meaning(code: number): string {
  return C1_NAMES[code - 0x80] ?? 'C1 control';
}

const STRAY_MEANINGS = C1_NAMES.map((name) => `invalid UTF-8 (8-bit terminal: ${name})`);

/**
 * Meaning of a raw 0x80–0x9F byte outside a well-formed character that does not open a
 * sequence: invalid UTF-8 to a UTF-8 terminal, and the named C1 control to an 8-bit one.
 */
export function strayMeaning(code: number): string {
  return STRAY_MEANINGS[code - 0x80] ?? 'invalid UTF-8';
}

/** Meaning of text withheld because not every terminal reading shows it. */
export const WITHHELD_MEANING = 'text not every terminal reading shows';

/**
 * Meaning of text withheld because it was written while another writer to the same terminal (the
 * other output stream) had a sequence open or a character set in use: the terminal reads it there.
 */
export const INTERLEAVED_MEANING = 'text written into a sequence the other stream left open';

/** Meaning of a character withheld because the terminal readings draw it differently (a character set). */
export const CHARSET_MEANING = 'character the terminals draw differently (character set)';

/** Meaning of an invisible code point. */
export function invisibleMeaning(cp: number): string {
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character (ASCII smuggling)';
  if (cp >= 0x2066 && cp <= 0x2069) return 'bidi isolate control';
  if (cp >= 0x202a && cp <= 0x202e) return cp === 0x202c ? 'bidi pop directional formatting' : 'bidi embedding/override control';
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c) return 'bidi mark (LRM/RLM/ALM)';
  if (cp === 0x200c || cp === 0x200d) return 'joiner (ZWNJ/ZWJ) outside a sequence that needs it';
  if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff || cp === 0x180e) return 'zero-width character';
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180f)) {
    return 'variation selector outside a sequence that takes it';
  }
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return 'Hangul filler';
  if (cp === 0x00ad) return 'soft hyphen';
  if (cp >= 0xfff9 && cp <= 0xfffb) return 'interlinear annotation control';
  if (cp === 0x2028 || cp === 0x2029) return 'line/paragraph separator (a terminal does not draw it)';
  if (isUndrawn(cp)) return 'unassigned code point (a terminal does not draw it)';
  return 'default-ignorable code point';
}

// Keys: final byte, or intermediate/private char followed by final, as a short string.
const ESC_MEANINGS: Record<string, string> = {
  '7': 'DECSC save cursor', '8': 'DECRC restore cursor', 'c': 'RIS full reset',
  'D': 'IND index', 'E': 'NEL next line', 'H': 'HTS tab set', 'M': 'RI reverse index (scroll down)',
  'N': 'SS2 single shift 2', 'O': 'SS3 single shift 3', 'Z': 'DECID identify terminal (query)',
  '=': 'DECKPAM keypad application mode', '>': 'DECKPNM keypad numeric mode', '\\': 'ST string terminator (stray)',
  'n': 'LS2 locking shift 2', 'o': 'LS3 locking shift 3', '|': 'LS3R locking shift', '}': 'LS2R locking shift',
  '~': 'LS1R locking shift', '6': 'DECBI back index', '9': 'DECFI forward index', 'l': 'memory lock',
  'm': 'memory unlock', 'F': 'cursor to lower left', 'V': 'SPA start of protected area',
  'W': 'EPA end of protected area', '#8': 'DECALN screen alignment test (fill with E)',
  '#3': 'DECDHL double-height line', '#4': 'DECDHL double-height line', '#5': 'DECSWL single-width line',
  '#6': 'DECDWL double-width line', '%G': 'select UTF-8 charset', '%@': 'select default charset',
  ' F': 'S7C1T 7-bit controls', ' G': 'S8C1T 8-bit controls',
};

/**
 * Re-keys a table of `[prefix]final` strings by `prefix << 8 | final`, so lookups on the hot path
 * build no strings.
 */
function byCode(table: Record<string, string>): Map<number, string> {
  return new Map(Object.entries(table).map(([key, meaning]) => [
    key.length === 2 ? (key.charCodeAt(0) << 8) | key.charCodeAt(1) : key.charCodeAt(0), meaning,
  ]));
}

const ESC_BY_CODE = byCode(ESC_MEANINGS);

/** Meaning of an ESC sequence from its first intermediate (0 if none) and final byte. */
export function escMeaning(intermediate: number, final: number): string {
  if (intermediate >= 0x28 && intermediate <= 0x2f && intermediate !== 0x2c) return 'designate character set';
  return ESC_BY_CODE.get((intermediate << 8) | final)
    ?? (intermediate ? 'ESC sequence with intermediate (unknown)' : 'ESC sequence (unknown)');
}

const CSI_MEANINGS: Record<string, string> = {
  '@': 'ICH insert characters', 'A': 'CUU cursor up', 'B': 'CUD cursor down', 'C': 'CUF cursor forward',
  'D': 'CUB cursor back', 'E': 'CNL cursor next line', 'F': 'CPL cursor previous line',
  'G': 'CHA cursor column', 'H': 'CUP cursor position', 'I': 'CHT tab forward', 'J': 'ED erase display',
  'K': 'EL erase line', 'L': 'IL insert lines', 'M': 'DL delete lines', 'P': 'DCH delete characters',
  'S': 'SU scroll up', 'T': 'SD scroll down', 'X': 'ECH erase characters', 'Z': 'CBT tab backward',
  '`': 'HPA column absolute', 'a': 'HPR column relative', 'b': 'REP repeat character',
  'c': 'DA device attributes (query)', 'd': 'VPA line absolute', 'e': 'VPR line relative',
  'f': 'HVP cursor position', 'g': 'TBC tab clear', 'h': 'SM set mode', 'i': 'MC media copy',
  'l': 'RM reset mode', 'm': 'SGR select graphic rendition', 'n': 'DSR device status report (query)',
  'q': 'DECLL load LEDs', 'r': 'DECSTBM set scroll region', 's': 'SCOSC save cursor',
  't': 'XTWINOPS window operation', 'u': 'SCORC restore cursor', 'x': 'DECREQTPARM request parameters',
  '?h': 'DECSET set private mode', '?l': 'DECRST reset private mode', '?n': 'DECDSR status report (query)',
  '?J': 'DECSED selective erase display', '?K': 'DECSEL selective erase line', '?s': 'XTSAVE save private modes',
  '?r': 'XTRESTORE restore private modes', '?u': 'keyboard protocol query', '>c': 'DA2 secondary device attributes (query)',
  '=c': 'DA3 tertiary device attributes (query)', '>m': 'XTMODKEYS modify keys', '>q': 'XTVERSION terminal version (query)',
  '>u': 'keyboard protocol push', '<u': 'keyboard protocol pop', '=u': 'keyboard protocol set',
  ' q': 'DECSCUSR cursor style', '!p': 'DECSTR soft reset', '"p': 'DECSCL conformance level',
  '$p': 'DECRQM request mode (query)', '"q': 'DECSCA character protection', '$r': 'DECCARA change attributes in area',
  '$t': 'DECRARA reverse attributes in area', '$v': 'DECCRA copy area', '$x': 'DECFRA fill area',
  '$z': 'DECERA erase area', "'}": 'DECIC insert columns', "'~": 'DECDC delete columns', '*x': 'DECSACE attribute change extent',
  ' @': 'SL scroll left', ' A': 'SR scroll right',
};

const ERASE_EXTENT = ['(to end)', '(to start)', '(all)', '(scrollback)'];

const PRIVATE_MODES: Record<number, string> = {
  1: 'cursor keys mode', 3: '132-column mode', 5: 'reverse video', 6: 'origin mode', 7: 'autowrap',
  9: 'X10 mouse reporting', 12: 'cursor blink', 25: 'cursor visibility', 47: 'alternate screen',
  1000: 'mouse reporting', 1002: 'mouse drag reporting', 1003: 'mouse motion reporting',
  1004: 'focus reporting', 1005: 'UTF-8 mouse', 1006: 'SGR mouse', 1015: 'urxvt mouse',
  1047: 'alternate screen', 1048: 'save cursor', 1049: 'alternate screen with saved cursor',
  2004: 'bracketed paste', 2026: 'synchronized output',
};

const WINDOW_OPS: Record<number, string> = {
  1: '(de-iconify)', 2: '(iconify)', 3: '(move window)', 4: '(resize window)', 5: '(raise)', 6: '(lower)',
  7: '(refresh)', 8: '(resize text area)', 9: '(maximize)', 10: '(full screen)', 11: '(report state)',
  13: '(report position)', 14: '(report size)', 18: '(report text size)', 19: '(report screen size)',
  20: '(report icon label: echoes text to input)', 21: '(report title: echoes text to input)',
  22: '(push title)', 23: '(pop title)',
};

const CSI_BY_CODE = byCode(CSI_MEANINGS);
/** Meanings of CSI sequences without private marker or intermediate, indexed by final byte. */
const CSI_PLAIN: (string | undefined)[] = Array.from({ length: 0x80 }, (_, final) => CSI_BY_CODE.get(final));
const ED = ERASE_EXTENT.map((e) => `ED erase display ${e}`);
const EL = ERASE_EXTENT.map((e) => `EL erase line ${e}`);
const WINDOW_OP_MEANINGS = new Map(Object.entries(WINDOW_OPS).map(([op, text]) => [Number(op), `XTWINOPS window operation ${text}`]));
const DECSET_MEANINGS = new Map(Object.entries(PRIVATE_MODES).map(([mode, text]) => [Number(mode), `DECSET ${mode} ${text}`]));
const DECRST_MEANINGS = new Map(Object.entries(PRIVATE_MODES).map(([mode, text]) => [Number(mode), `DECRST ${mode} ${text}`]));
const SGR_CONCEAL = 'SGR select graphic rendition (conceal: hidden text)';
/** The two meanings of a plain SGR, as {@link csiMeaning} gives them: without and with a conceal (8) parameter. */
export const SGR_MEANINGS: readonly [string, string] = [CSI_MEANINGS.m, SGR_CONCEAL];
const DSR_CPR = 'DSR cursor position report (query)';

/**
 * Meaning of a complete CSI sequence. `params` holds up to `paramCount` leading parameter values
 * (-1 for an omitted one); `priv` is the private marker (`?`, `>`, `=`, `<`) or 0.
 */
export function csiMeaning(priv: number, intermediate: number, final: number, params: Int32Array, paramCount: number): string {
  const prefix = priv || intermediate;
  const base = prefix === 0 ? CSI_PLAIN[final] : CSI_BY_CODE.get((prefix << 8) | final);
  if (base === undefined) return 'CSI sequence (unknown)';
  const first = paramCount > 0 ? params[0] : -1;
  if (prefix === 0) {
    switch (final) {
      case 0x4a: return ED[Math.max(first, 0)] ?? base;
      case 0x4b: return EL[Math.max(first, 0)] ?? base;
      case 0x74: return WINDOW_OP_MEANINGS.get(first) ?? base;
      case 0x6d: return hasParam(params, paramCount, 8) ? SGR_CONCEAL : base;
      case 0x6e: return first === 6 ? DSR_CPR : base;
      default: return base;
    }
  }
  if (priv === 0x3f && (final === 0x68 || final === 0x6c)) {
    // Named by the mode that moves the cursor or switches the screen, when one is set among others.
    const table = final === 0x68 ? DECSET_MEANINGS : DECRST_MEANINGS;
    for (let i = 0; i < paramCount; i++) if (SCREEN_MODES.has(params[i])) return table.get(params[i]) as string;
    return table.get(first) ?? base;
  }
  return base;
}

/** Private modes whose set or reset moves the cursor or switches the screen (see motion.ts). */
const SCREEN_MODES = new Set([3, 6, 47, 1047, 1048, 1049]);

/** Whether one of the first `count` of `params` is `value`. */
export function hasParam(params: Int32Array, count: number, value: number): boolean {
  for (let i = 0; i < count; i++) if (params[i] === value) return true;
  return false;
}

const OSC_MEANINGS: Record<number, string> = {
  0: 'OSC 0 set icon name and window title', 1: 'OSC 1 set icon name', 2: 'OSC 2 set window title',
  3: 'OSC 3 set X property', 4: 'OSC 4 palette colour (set/query)', 5: 'OSC 5 special colour',
  6: 'OSC 6 special colour enable', 7: 'OSC 7 current directory', 8: 'OSC 8 hyperlink',
  9: 'OSC 9 desktop notification', 10: 'OSC 10 foreground colour (set/query)',
  11: 'OSC 11 background colour (set/query)', 12: 'OSC 12 cursor colour (set/query)',
  17: 'OSC 17 highlight colour', 46: 'OSC 46 log file', 50: 'OSC 50 font (set/query)',
  51: 'OSC 51 emacs', 52: 'OSC 52 clipboard access', 99: 'OSC 99 desktop notification',
  104: 'OSC 104 reset palette', 110: 'OSC 110 reset foreground', 111: 'OSC 111 reset background',
  112: 'OSC 112 reset cursor colour', 133: 'OSC 133 shell integration mark',
  633: 'OSC 633 shell integration', 777: 'OSC 777 desktop notification', 1337: 'OSC 1337 iTerm2 command (file transfer)',
  5113: 'OSC 5113 file transfer', 5522: 'OSC 5522 clipboard access',
};

/** A Map, not the object above: integer keys up to 5522 would make that a slow dictionary lookup. */
const OSC_BY_COMMAND = new Map(Object.entries(OSC_MEANINGS).map(([command, meaning]) => [Number(command), meaning]));

/** Meaning of an OSC string from its numeric command (-1 if it had none). */
export function oscMeaning(command: number, hyperlinkOpens: boolean): string {
  if (command === 8) return hyperlinkOpens ? 'OSC 8 hyperlink (open)' : 'OSC 8 hyperlink (close)';
  if (command < 0) return 'OSC without numeric command';
  return OSC_BY_COMMAND.get(command) ?? 'OSC unknown command';
}

const DCS_MEANINGS: Record<string, string> = {
  'q': 'DCS sixel graphics', '$q': 'DECRQSS request setting (query)', '+q': 'XTGETTCAP termcap query',
  '+p': 'XTSETTCAP set termcap', '|': 'DECUDK user-defined keys', '{': 'DECDLD downloadable font',
  'p': 'DCS ReGIS graphics', 't': 'DCS tmux passthrough', '=s': 'DCS synchronized update',
  '$t': 'DECRSPS restore presentation state', '$p': 'DECRSTS restore terminal state',
};

const DCS_BY_CODE = byCode(DCS_MEANINGS);

/** Meaning of a DCS string from its private marker, first intermediate and final byte (0 when absent). */
export function dcsMeaning(priv: number, intermediate: number, final: number): string {
  if (final === 0) return 'DCS (no header)';
  return DCS_BY_CODE.get(((priv || intermediate) << 8) | final) ?? 'DCS unknown';
}

/** Meanings of SOS, PM and APC strings, which carry no command syntax. */
export const SOS_MEANING = 'SOS start of string';
export const PM_MEANING = 'PM privacy message';
export const APC_MEANING = 'APC application program command';
