/**
 * Proves the parser's classification, one unit test per class and meaning: every C0 and C1
 * control (raw and UTF-8 encoded), ESC forms, CSI (meanings from parameters, private markers,
 * intermediates, colon sub-parameters), OSC (titles, OSC 8 open/close with BEL and ST, 52, 1337,
 * unknown and missing numbers), DCS, SOS/PM/APC, invalid UTF-8 (maximal subparts), invisible
 * code points, valid text whose continuation bytes lie in 0x80-0x9F (never C1, also inside an OSC
 * payload), CAN/SUB aborts, ESC interruptions, every span flag (unterminated, oversized at exact
 * limit boundaries, malformed, eight-bit, utf8-encoded), and that offsets and lengths tile the input.
 */
import { describe, expect, it } from 'vitest';
import { Parser } from '../../shared/parser/parser';
import { NoopSink } from '../../shared/parser/sink';
import { SpanClass, SpanFlag } from '../../shared/parser/span-class';
import { bytes, events, record, tilingProblem, utf8 } from '../helpers/record';

describe('C0 controls', () => {
  it.each([
    ['NUL', '\x00', 'c0@1+1 NUL null'],
    ['ENQ', '\x05', 'c0@1+1 ENQ enquiry (answerback request)'],
    ['BEL', '\x07', 'c0@1+1 BEL bell'],
    ['BS', '\x08', 'c0@1+1 BS backspace'],
    ['VT', '\x0b', 'c0@1+1 VT vertical tab'],
    ['FF', '\x0c', 'c0@1+1 FF form feed'],
    ['CR', '\r', 'c0@1+1 CR carriage return'],
    ['SO', '\x0e', 'c0@1+1 SO shift out (G1 charset)'],
    ['SI', '\x0f', 'c0@1+1 SI shift in (G0 charset)'],
    ['DC1', '\x11', 'c0@1+1 DC1 device control 1 (XON)'],
    ['CAN', '\x18', 'c0@1+1 CAN cancel'],
    ['SUB', '\x1a', 'c0@1+1 SUB substitute'],
    ['US', '\x1f', 'c0@1+1 US unit separator'],
    ['DEL', '\x7f', 'c0@1+1 DEL delete'],
  ])('%s is a one-byte c0 span between text', (_name, ctl, span) => {
    expect(events(bytes('a', ctl, 'b'))).toEqual(['text "a"@0', span, 'text "b"@2']);
  });

  it('reports the control code in `code`', () => {
    const spans = record(bytes('\x05\x7f')).spans();
    expect(spans.map((s) => [s.cls, s.code, s.flags])).toEqual([[SpanClass.C0, 0x05, 0], [SpanClass.C0, 0x7f, 0]]);
  });

  it('keeps LF and TAB as text', () => {
    expect(events(bytes('a\tb\nc'))).toEqual(['text "a\\tb\\nc"@0']);
  });

  it('gives every C0 byte but LF and TAB a span', () => {
    for (let c = 0; c < 0x20; c++) {
      if (c === 0x09 || c === 0x0a || c === 0x1b) continue;
      const rec = record(Uint8Array.of(c));
      expect(rec.spans().map((s) => [s.cls, s.offset, s.length, s.code])).toEqual([[SpanClass.C0, 0, 1, c]]);
    }
  });
});

describe('C1 controls as raw bytes (outside UTF-8)', () => {
  it('0x84 is invalid UTF-8, labelled with what an 8-bit terminal does (IND)', () => {
    expect(events(bytes('a\x84b'))).toEqual(['text "a"@0', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'text "b"@2']);
  });

  it('every non-introducer C1 byte is a one-byte invalid_utf8 span with its code, flagged stray', () => {
    const introducers = [0x90, 0x98, 0x9b, 0x9d, 0x9e, 0x9f];
    for (let c = 0x80; c <= 0x9f; c++) {
      if (introducers.includes(c)) continue;
      const spans = record(bytes(Uint8Array.of(c), 'x')).spans();
      expect(spans.map((s) => [s.cls, s.offset, s.length, s.code, s.flags])).toEqual([[SpanClass.InvalidUtf8, 0, 1, c, SpanFlag.Stray]]);
    }
  });

  it('0x9B is CSI and takes parameters', () => {
    expect(events(bytes('\x9b?25lX'))).toEqual(['csi@0+5 DECRST 25 cursor visibility {8bit,stray}', 'text "X"@5']);
    expect(events(bytes('\x9b31mX'))).toEqual(['csi@0+4 SGR select graphic rendition {8bit,stray}', 'text "X"@4']);
  });

  it('0x9D is OSC, ended by 0x9C ST', () => {
    expect(events(bytes('\x9d0;title\x9cX'))).toEqual(['osc@0+9 OSC 0 set icon name and window title {8bit,stray}', 'text "X"@9']);
  });

  it('0x9D OSC also ends at BEL', () => {
    expect(events(bytes('\x9d2;t\x07X'))).toEqual(['osc@0+5 OSC 2 set window title {8bit,stray}', 'text "X"@5']);
  });

  it('0x90 is DCS, ended by 0x9C', () => {
    expect(events(bytes('\x90$qm\x9cX'))).toEqual(['dcs@0+5 DECRQSS request setting (query) {8bit,stray}', 'text "X"@5']);
  });

  it.each([
    ['0x98 SOS', '\x98', 'sos@0+5 SOS start of string {8bit,stray}'],
    ['0x9E PM', '\x9e', 'pm@0+5 PM privacy message {8bit,stray}'],
    ['0x9F APC', '\x9f', 'apc@0+5 APC application program command {8bit,stray}'],
  ])('%s is a string ended by 0x9C', (_name, intro, span) => {
    expect(events(bytes(intro, 'pay\x9cX'))).toEqual([span, 'text "X"@5']);
  });

  it('0x9C outside a string is invalid UTF-8 (a stray ST to an 8-bit terminal)', () => {
    expect(events(bytes('a\x9cb'))).toEqual(['text "a"@0', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'text "b"@2']);
  });
});

describe('C1 controls as UTF-8 (C2 80 - C2 9F)', () => {
  it('C2 84 is IND, flagged utf8', () => {
    expect(events(bytes(utf8('a\u0084b')))).toEqual(['text "a"@0', 'c1@1+2 IND index {utf8}', 'text "b"@3']);
  });

  it('C2 85 is NEL (not text)', () => {
    expect(events(utf8('\u0085'))).toEqual(['c1@0+2 NEL next line {utf8}']);
  });

  it('C2 9B is CSI', () => {
    expect(events(bytes(utf8('\u009b'), '2JX'))).toEqual(['csi@0+4 ED erase display (all) {8bit,utf8}', 'text "X"@4']);
  });

  it('C2 9D ... C2 9C is an OSC', () => {
    expect(events(bytes(utf8('\u009d'), '2;t', utf8('\u009c'), 'X'))).toEqual(['osc@0+7 OSC 2 set window title {8bit,utf8}', 'text "X"@7']);
  });

  it('C2 90 is DCS', () => {
    expect(events(bytes(utf8('\u0090'), '+q544e', utf8('\u009c'), 'X'))).toEqual(['dcs@0+10 XTGETTCAP termcap query {8bit,utf8}', 'text "X"@10']);
  });

  it('C2 80 - C2 9F are all C1 and C2 A0 (NBSP) is text', () => {
    const introducers: Record<number, SpanClass> = {
      0x90: SpanClass.Dcs, 0x98: SpanClass.Sos, 0x9b: SpanClass.Csi, 0x9d: SpanClass.Osc, 0x9e: SpanClass.Pm, 0x9f: SpanClass.Apc,
    };
    for (let c = 0x80; c <= 0x9f; c++) {
      const rec = record(bytes(Uint8Array.of(0xc2, c)));
      const [span] = rec.spans();
      expect(rec.text()).toBe('');
      expect(span.flags & SpanFlag.Utf8Encoded).toBe(SpanFlag.Utf8Encoded);
      expect([span.offset, span.length, span.cls]).toEqual([0, 2, introducers[c] ?? SpanClass.C1]);
    }
    expect(events(bytes('\xc2\xa0'))).toEqual(['text "\u00a0"@0']);
  });
});

describe('ESC sequences', () => {
  it.each([
    ['ESC 7', '\x1b7', 'esc@0+2 DECSC save cursor'],
    ['ESC 8', '\x1b8', 'esc@0+2 DECRC restore cursor'],
    ['ESC c', '\x1bc', 'esc@0+2 RIS full reset'],
    ['ESC D', '\x1bD', 'esc@0+2 IND index'],
    ['ESC M', '\x1bM', 'esc@0+2 RI reverse index (scroll down)'],
    ['ESC Z', '\x1bZ', 'esc@0+2 DECID identify terminal (query)'],
    ['ESC =', '\x1b=', 'esc@0+2 DECKPAM keypad application mode'],
    ['ESC ( 0', '\x1b(0', 'esc@0+3 designate character set'],
    ['ESC ) B', '\x1b)B', 'esc@0+3 designate character set'],
    ['ESC # 8', '\x1b#8', 'esc@0+3 DECALN screen alignment test (fill with E)'],
    ['ESC % G', '\x1b%G', 'esc@0+3 select UTF-8 charset'],
    ['ESC SP F', '\x1b F', 'esc@0+3 S7C1T 7-bit controls'],
    ['ESC SP G', '\x1b G', 'esc@0+3 S8C1T 8-bit controls'],
    ['ESC \\ (stray ST)', '\x1b\\', 'esc@0+2 ST string terminator (stray)'],
    ['unknown ESC final', '\x1bq', 'esc@0+2 ESC sequence (unknown)'],
    ['unknown ESC with intermediate', '\x1b!q', 'esc@0+3 ESC sequence with intermediate (unknown)'],
  ])('%s', (_name, seq, span) => {
    expect(events(bytes(seq, 'X'))).toEqual([span, `text "X"@${seq.length}`]);
  });

  it('reports the final byte in `code`', () => {
    expect(record(bytes('\x1b(0')).spans()[0].code).toBe(0x30);
  });

  it('a lone ESC at EOF is unterminated', () => {
    expect(events(bytes('a\x1b'))).toEqual(['text "a"@0', 'esc@1+1 ESC escape (lone) {unterminated}']);
  });

  it('ESC ESC: the first is malformed, the second starts a sequence', () => {
    expect(events(bytes('\x1b\x1b7'))).toEqual(['esc@0+1 ESC escape (lone) {malformed}', 'esc@1+2 DECSC save cursor']);
  });

  it('UTF-8 text right after ESC is ignored inside the ESC (deny by default: tmux and libvterm do so), never text', () => {
    expect(events(bytes('\x1b', utf8('本')))).toEqual(['esc@0+4 ESC escape (lone) {unterminated,malformed}']);
  });
});

describe('CSI sequences', () => {
  it.each([
    ['SGR 31', '\x1b[31m', 'csi@0+5 SGR select graphic rendition'],
    ['SGR reset', '\x1b[m', 'csi@0+3 SGR select graphic rendition'],
    ['SGR 38;2;r;g;b', '\x1b[38;2;1;2;3m', 'csi@0+13 SGR select graphic rendition'],
    ['SGR 38:2::r:g:b (colon sub-parameters)', '\x1b[38:2::255:0:0m', 'csi@0+16 SGR select graphic rendition'],
    ['SGR 8 conceal', '\x1b[1;8m', 'csi@0+6 SGR select graphic rendition (conceal: hidden text)'],
    ['SGR 38:5:8 is not conceal (8 is a sub-parameter)', '\x1b[38:5:8m', 'csi@0+9 SGR select graphic rendition'],
    ['ED 2J', '\x1b[2J', 'csi@0+4 ED erase display (all)'],
    ['ED J', '\x1b[J', 'csi@0+3 ED erase display (to end)'],
    ['ED 1J', '\x1b[1J', 'csi@0+4 ED erase display (to start)'],
    ['ED 3J', '\x1b[3J', 'csi@0+4 ED erase display (scrollback)'],
    ['ED 9J (unknown extent)', '\x1b[9J', 'csi@0+4 ED erase display'],
    ['EL 2K', '\x1b[2K', 'csi@0+4 EL erase line (all)'],
    ['CUU 1A', '\x1b[1A', 'csi@0+4 CUU cursor up'],
    ['CUP H', '\x1b[H', 'csi@0+3 CUP cursor position'],
    ['DECSET ?1049h', '\x1b[?1049h', 'csi@0+8 DECSET 1049 alternate screen with saved cursor'],
    ['DECRST ?25l', '\x1b[?25l', 'csi@0+6 DECRST 25 cursor visibility'],
    ['DECSET ?2004h', '\x1b[?2004h', 'csi@0+8 DECSET 2004 bracketed paste'],
    ['DECSET unknown mode', '\x1b[?4242h', 'csi@0+8 DECSET set private mode'],
    ['XTWINOPS 21t report title', '\x1b[21t', 'csi@0+5 XTWINOPS window operation (report title: echoes text to input)'],
    ['XTWINOPS 8;1;1t', '\x1b[8;1;1t', 'csi@0+8 XTWINOPS window operation (resize text area)'],
    ['DSR 6n', '\x1b[6n', 'csi@0+4 DSR cursor position report (query)'],
    ['DSR 5n', '\x1b[5n', 'csi@0+4 DSR device status report (query)'],
    ['DA c', '\x1b[c', 'csi@0+3 DA device attributes (query)'],
    ['DA2 >c (private marker)', '\x1b[>c', 'csi@0+4 DA2 secondary device attributes (query)'],
    ['XTVERSION >0q', '\x1b[>0q', 'csi@0+5 XTVERSION terminal version (query)'],
    ['DECSCUSR 2 SP q (intermediate)', '\x1b[2 q', 'csi@0+5 DECSCUSR cursor style'],
    ['DECSTR !p (intermediate)', '\x1b[!p', 'csi@0+4 DECSTR soft reset'],
    ['DECRQM $p', '\x1b[4$p', 'csi@0+5 DECRQM request mode (query)'],
    ['unknown final', '\x1b[1y', 'csi@0+4 CSI sequence (unknown)'],
  ])('%s', (_name, seq, span) => {
    expect(events(bytes(seq, 'X'))).toEqual([span, `text "X"@${seq.length}`]);
  });

  it('reports the final byte in `code`', () => {
    expect(record(bytes('\x1b[31m')).spans()[0].code).toBe(0x6d);
  });

  it('a private marker after a parameter sends the CSI to csi_ignore (malformed), final still ends it', () => {
    expect(events(bytes('\x1b[1?hX'))).toEqual(['csi@0+5 SM set mode {malformed}', 'text "X"@5']);
  });

  it('a parameter after an intermediate is malformed', () => {
    expect(events(bytes('\x1b[ 1qX'))).toEqual(['csi@0+5 DECSCUSR cursor style {malformed}', 'text "X"@5']);
  });

  it('a C0 control inside a CSI executes (its own span) and the CSI goes on', () => {
    expect(events(bytes('\x1b[1\r\x07AX'))).toEqual([
      'c0@3+1 CR carriage return', 'c0@4+1 BEL bell', 'csi@0+6 CUU cursor up', 'text "X"@6',
    ]);
  });

  it('LF inside a CSI executes as text and the CSI goes on', () => {
    expect(events(bytes('\x1b[1\nA'))).toEqual(['text "\\n"@3', 'csi@0+5 CUU cursor up']);
  });

  it('DEL inside a CSI is ignored', () => {
    expect(events(bytes('\x1b[1\x7fA'))).toEqual(['csi@0+5 CUU cursor up']);
  });

  it('many parameters (more than are tracked) still make one span', () => {
    const seq = `\x1b[${'1;'.repeat(40)}8m`;
    expect(events(bytes(seq, 'X'))).toEqual([`csi@0+${seq.length} SGR select graphic rendition`, `text "X"@${seq.length}`]);
  });

  it('huge parameter values saturate without error', () => {
    expect(events(bytes('\x1b[99999999999999999999;1HX'))).toEqual(['csi@0+25 CUP cursor position', 'text "X"@25']);
  });
});

describe('OSC strings', () => {
  it.each([
    ['OSC 0 title, BEL', '\x1b]0;title\x07', 'osc@0+10 OSC 0 set icon name and window title'],
    ['OSC 2 title, ST', '\x1b]2;title\x1b\\', 'osc@0+11 OSC 2 set window title'],
    ['OSC 8 open, BEL', '\x1b]8;;http://x\x07', 'osc@0+14 OSC 8 hyperlink (open)'],
    ['OSC 8 close, BEL', '\x1b]8;;\x07', 'osc@0+6 OSC 8 hyperlink (close)'],
    ['OSC 8 open, ST', '\x1b]8;;http://x\x1b\\', 'osc@0+15 OSC 8 hyperlink (open)'],
    ['OSC 8 close, ST', '\x1b]8;;\x1b\\', 'osc@0+7 OSC 8 hyperlink (close)'],
    ['OSC 8 open with params', '\x1b]8;id=1;http://x\x1b\\', 'osc@0+19 OSC 8 hyperlink (open)'],
    ['OSC 52 clipboard', '\x1b]52;c;ZXZpbA==\x07', 'osc@0+16 OSC 52 clipboard access'],
    ['OSC 1337', '\x1b]1337;File=name=eA==:AAAA\x07', 'osc@0+27 OSC 1337 iTerm2 command (file transfer)'],
    ['OSC 9999 unknown', '\x1b]9999;x\x07', 'osc@0+9 OSC unknown command'],
    ['OSC with a very long number', '\x1b]12345678;x\x07', 'osc@0+13 OSC unknown command'],
    ['OSC without number', '\x1b];x\x07', 'osc@0+5 OSC without numeric command'],
    ['OSC with text instead of a number', '\x1b]x\x07', 'osc@0+4 OSC without numeric command'],
  ])('%s', (_name, seq, span) => {
    expect(events(bytes(seq, 'X'))).toEqual([span, `text "X"@${seq.length}`]);
  });

  it('reports the OSC number in `code` (-1 when there is none)', () => {
    expect(record(bytes('\x1b]52;c;x\x07')).spans()[0].code).toBe(52);
    expect(record(bytes('\x1b];x\x07')).spans()[0].code).toBe(-1);
  });

  it('keeps the OSC 8 label as text between the open and close spans', () => {
    expect(events(bytes('\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\'))).toEqual([
      'osc@0+30 OSC 8 hyperlink (open)', 'text "open"@30', 'osc@34+7 OSC 8 hyperlink (close)',
    ]);
  });

  it('payload holding LF, TAB, C0 and DEL stays payload', () => {
    expect(events(bytes('\x1b]0;a\nb\tc\x01\x7f\x07X'))).toEqual(['osc@0+12 OSC 0 set icon name and window title', 'text "X"@12']);
  });

  it('an ESC inside the payload not followed by \\ interrupts the OSC (malformed)', () => {
    expect(events(bytes('\x1b]0;t\x1b[1mok'))).toEqual([
      'osc@0+5 OSC 0 set icon name and window title {malformed}', 'csi@5+4 SGR select graphic rendition', 'text "ok"@9',
    ]);
  });
});

describe('DCS, SOS, PM, APC strings', () => {
  it.each([
    ['DCS $q DECRQSS', '\x1bP$qm\x1b\\', 'dcs@0+7 DECRQSS request setting (query)'],
    ['DCS +q XTGETTCAP', '\x1bP+q544e\x1b\\', 'dcs@0+10 XTGETTCAP termcap query'],
    ['DCS sixel', '\x1bP0;1;0q"1;1;1;1#0~~@@\x1b\\', 'dcs@0+24 DCS sixel graphics'],
    ['DCS tmux passthrough', '\x1bPtmux;\x1b\x1b]0;x\x07\x1b\\', 'dcs@0+7 DCS tmux passthrough {malformed}'],
    ['DCS unknown', '\x1bPzabc\x1b\\', 'dcs@0+8 DCS unknown'],
    ['SOS', '\x1bXsos\x1b\\', 'sos@0+7 SOS start of string'],
    ['PM', '\x1b^pm\x1b\\', 'pm@0+6 PM privacy message'],
    ['APC (kitty graphics)', '\x1b_Gf=1;AAAA\x1b\\', 'apc@0+13 APC application program command'],
  ])('%s', (_name, seq, span) => {
    const rec = record(bytes(seq, 'X'));
    expect(rec.lines()[0]).toBe(span);
    expect(rec.text().endsWith('X')).toBe(true);
  });

  it('BEL does not end a DCS, SOS, PM or APC (only OSC)', () => {
    for (const intro of ['\x1bPq', '\x1bX', '\x1b^', '\x1b_']) {
      const rec = record(bytes(intro, 'a\x07b\x1b\\X'));
      expect(rec.spans()).toHaveLength(1);
      expect(rec.text()).toBe('X');
    }
  });

  it('a C0 control in a DCS header is ignored (not a span)', () => {
    expect(events(bytes('\x1bP1\r$qm\x1b\\X'))).toEqual(['dcs@0+9 DECRQSS request setting (query)', 'text "X"@9']);
  });

  it('non-ASCII in a DCS header is ignored there (malformed): nothing after the introducer becomes text', () => {
    expect(events(bytes('\x1bP1', utf8('本'), 'visible\x1b\\X'))).toEqual(['dcs@0+15 DCS unknown {malformed}', 'text "X"@15']);
  });
});

describe('invalid UTF-8 (one span per maximal ill-formed subpart)', () => {
  it('a lone 0xFF', () => {
    expect(events(bytes('a\xffb'))).toEqual(['text "a"@0', 'invalid_utf8@1+1 invalid UTF-8', 'text "b"@2']);
  });

  it('truncated E0 A0 then A is one subpart', () => {
    expect(events(bytes('\xe0\xa0A'))).toEqual(['invalid_utf8@0+2 invalid UTF-8', 'text "A"@2']);
    expect(events(bytes('\xf0\xa0\xa0A'))).toEqual(['invalid_utf8@0+3 invalid UTF-8', 'text "A"@3']);
  });

  it('a subpart is cut before a 0x80-0x9F continuation byte, which is a stray C1 of its own (E2 82 then A)', () => {
    expect(events(bytes('\xe2\x82A'))).toEqual([
      'invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: BPH break permitted here) {stray}', 'text "A"@2',
    ]);
  });

  it('truncated F0 9F 99 then A: 0x9F opens an APC (8-bit) that the stray 0x99 aborts', () => {
    expect(events(bytes('\xf0\x9f\x99A'))).toEqual([
      'invalid_utf8@0+1 invalid UTF-8', 'apc@1+1 APC application program command {malformed,8bit,stray}',
      'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: SGCI single graphic character introducer) {stray}', 'text "A"@3',
    ]);
  });

  it('overlong C0 80: C0 is invalid, and the stray 0x80 is invalid UTF-8 too (PAD to an 8-bit terminal), not text', () => {
    expect(events(bytes('\xc0\x80A'))).toEqual(['invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: PAD padding character) {stray}', 'text "A"@2']);
  });

  it('overlong E0 80 80 and F0 80 80 80: the lead is invalid, stray continuations are invalid (C1 to an 8-bit terminal)', () => {
    expect(events(bytes('\xe0\x80\x80'))).toEqual([
      'invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: PAD padding character) {stray}',
      'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: PAD padding character) {stray}',
    ]);
    expect(events(bytes('\xf0\x80\x80\x80')).filter((e) => e.endsWith('invalid UTF-8'))).toEqual(['invalid_utf8@0+1 invalid UTF-8']);
  });

  it('surrogate ED A0 80: ED invalid, A0 invalid, stray 0x80 invalid (PAD to an 8-bit terminal)', () => {
    expect(events(bytes('\xed\xa0\x80A'))).toEqual([
      'invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: PAD padding character) {stray}', 'text "A"@3',
    ]);
  });

  it('F5 and above are always invalid', () => {
    for (let b = 0xf5; b <= 0xff; b++) {
      expect(events(bytes(Uint8Array.of(b), 'A'))).toEqual(['invalid_utf8@0+1 invalid UTF-8', 'text "A"@1']);
    }
  });

  it('beyond U+10FFFF (F4 90 80 80): F4 invalid, then 0x90 is a C1 DCS', () => {
    expect(events(bytes('\xf4\x90\x80\x80'))[0]).toBe('invalid_utf8@0+1 invalid UTF-8');
    expect(events(bytes('\xf4\x90\x80\x80'))[1]).toBe('dcs@1+1 DCS (no header) {malformed,8bit,stray}');
  });

  it('a lone continuation byte above 0x9F is invalid, not C1', () => {
    expect(events(bytes('\xa0\xbf'))).toEqual(['invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8']);
  });

  it('an incomplete character at EOF is invalid', () => {
    expect(events(bytes('a\xe6\xa0'))).toEqual(['text "a"@0', 'invalid_utf8@1+2 invalid UTF-8']);
    // Cut before its 0x9C, which is a stray ST to an 8-bit terminal.
    expect(events(bytes('a\xe6\x9c'))).toEqual([
      'text "a"@0', 'invalid_utf8@1+1 invalid UTF-8', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}',
    ]);
  });

  it('a lead byte followed by ESC: the lead is invalid and the ESC sequence is intact', () => {
    expect(events(bytes('\xe2\x1b[31mX'))).toEqual(['invalid_utf8@0+1 invalid UTF-8', 'csi@1+5 SGR select graphic rendition', 'text "X"@6']);
  });

  it('reports the first byte in `code`', () => {
    expect(record(bytes('\xe2\x82A')).spans()[0].code).toBe(0xe2);
  });
});

describe('invisible code points', () => {
  it.each([
    ['U+202E RLO', '\u202e', 'invisible@1+3 bidi embedding/override control'],
    ['U+202A LRE', '\u202a', 'invisible@1+3 bidi embedding/override control'],
    ['U+202C PDF', '\u202c', 'invisible@1+3 bidi pop directional formatting'],
    ['U+2066 LRI', '\u2066', 'invisible@1+3 bidi isolate control'],
    ['U+2069 PDI', '\u2069', 'invisible@1+3 bidi isolate control'],
    ['U+E0041 tag A', '\u{e0041}', 'invisible@1+4 tag character (ASCII smuggling)'],
    ['U+E0000', '\u{e0000}', 'invisible@1+4 tag character (ASCII smuggling)'],
    ['U+E007F cancel tag', '\u{e007f}', 'invisible@1+4 tag character (ASCII smuggling)'],
  ])('%s is an invisible span', (_name, ch, span) => {
    const len = utf8(ch).length;
    expect(events(utf8(`a${ch}b`))).toEqual(['text "a"@0', span, `text "b"@${1 + len}`]);
  });

  it('reports the code point in `code`', () => {
    expect(record(utf8('\u{e0041}')).spans()[0].code).toBe(0xe0041);
  });

  it('neighbours of the ranges are text', () => {
    for (const ch of ['\u2027', '\u202f', '\u2070', '\u{f0000}', '\u{1fbf9}', '\u00ac', '\u00ae', '\u200a', '\u2010']) {
      expect(record(utf8(ch)).spans()).toEqual([]);
    }
  });
});

describe('valid text whose continuation bytes are 0x80-0x9F is never C1', () => {
  it.each([
    ['€ (E2 82 AC)', '€'],
    ['本 (E6 9C AC)', '本'],
    ['🙂 (F0 9F 99 82)', '🙂'],
    ['U+201B (E2 80 9B)', '\u201b'],
    ['U+6E9B 溛 (E6 BA 9B)', '溛'],
    ['U+5C9D (E5 B2 9D)', '\u5c9d'],
  ])('%s is text', (_name, ch) => {
    expect(events(utf8(`a${ch}b`))).toEqual([`text "a${ch}b"@0`]);
  });

  it('ESC ] 0 ; 本 BEL ends at the BEL, not at the 0x9C inside 本', () => {
    expect(events(bytes('\x1b]0;', utf8('本'), '\x07ok'))).toEqual(['osc@0+8 OSC 0 set icon name and window title', 'text "ok"@8']);
  });

  it('inside OSC, DCS and APC payloads a 0x9C/0x9B/0x9D continuation does not end or restart the string', () => {
    const payload = utf8('本溛\u5c9d');
    for (const intro of ['\x1b]2;', '\x1bPq', '\x1b_']) {
      const rec = record(bytes(intro, payload, 'secret\x1b\\ok'));
      expect(rec.spans()).toHaveLength(1);
      expect(rec.spans()[0].flags).toBe(0);
      expect(rec.text()).toBe('ok');
    }
  });

  it('UTF-8 text inside a CSI parameter run is ignored there (malformed); the final still ends the CSI', () => {
    expect(events(bytes('\x1b[3', utf8('€'), 'm'))).toEqual(['csi@0+7 SGR select graphic rendition {malformed}']);
  });
});

describe('CAN and SUB abort', () => {
  it('CAN aborts a CSI: the rest is text', () => {
    expect(events(bytes('\x1b[31\x18m'))).toEqual(['csi@0+4 CSI sequence (incomplete) {malformed}', 'c0@4+1 CAN cancel', 'text "m"@5']);
  });

  it('SUB aborts an OSC: what follows is text, the payload is not', () => {
    expect(events(bytes('\x1b]0;title\x1avisible'))).toEqual([
      'osc@0+9 OSC 0 set icon name and window title {malformed}', 'c0@9+1 SUB substitute', 'text "visible"@10',
    ]);
  });

  it('CAN aborts a DCS (not in tmux: what follows is withheld), an APC and an ESC', () => {
    expect(events(bytes('\x1bPqab\x18X'))).toEqual(['dcs@0+5 DCS sixel graphics {malformed}', 'c0@5+1 CAN cancel', 'withheld@6+1 text not every terminal reading shows']);
    expect(events(bytes('\x1b_ab\x18X'))).toEqual(['apc@0+4 APC application program command {malformed}', 'c0@4+1 CAN cancel', 'text "X"@5']);
    expect(events(bytes('\x1b(\x18X'))).toEqual(['esc@0+2 ESC escape (lone) {malformed}', 'c0@2+1 CAN cancel', 'text "X"@3']);
  });

  it('CAN right after an ESC inside a string aborts both', () => {
    expect(events(bytes('\x1b]0;t\x1b\x18X'))).toEqual([
      'osc@0+5 OSC 0 set icon name and window title {malformed}', 'esc@5+1 ESC escape (lone) {malformed}', 'c0@6+1 CAN cancel', 'text "X"@7',
    ]);
  });
});

describe('ESC interrupting a sequence', () => {
  it('ESC inside a CSI ends it as malformed and starts the next sequence (an OSC here)', () => {
    expect(events(bytes('\x1b[31\x1b]0;evil\x07m'))).toEqual([
      'csi@0+4 CSI sequence (incomplete) {malformed}', 'osc@4+9 OSC 0 set icon name and window title', 'text "m"@13',
    ]);
  });

  it('ESC inside an OSC followed by [ ends the OSC and starts a CSI', () => {
    expect(events(bytes('\x1b]2;x\x1b[2Jy'))).toEqual([
      'osc@0+5 OSC 2 set window title {malformed}', 'csi@5+4 ED erase display (all)', 'text "y"@9',
    ]);
  });

  it('C1 CSI inside an OSC ends it and starts a CSI (8-bit reading; xterm.js too when encoded); the other readings are still in the OSC, so y is withheld', () => {
    expect(events(bytes('\x1b]2;x\x9b2Jy'))).toEqual([
      'osc@0+5 OSC 2 set window title {malformed}', 'csi@5+3 ED erase display (all) {8bit,stray}',
      'withheld@8+1 text not every terminal reading shows',
    ]);
    expect(events(bytes('\x1b]2;x\xc2\x9b2Jy'))).toEqual([
      'osc@0+5 OSC 2 set window title {malformed}', 'csi@5+4 ED erase display (all) {8bit,utf8}',
      'withheld@9+1 text not every terminal reading shows',
    ]);
  });
});

describe('flags', () => {
  it('unterminated at EOF: CSI, ESC with intermediate, OSC, DCS, APC, OSC ending in ESC', () => {
    expect(events(bytes('\x1b[31'))).toEqual(['csi@0+4 CSI sequence (incomplete) {unterminated}']);
    expect(events(bytes('\x1b('))).toEqual(['esc@0+2 ESC escape (lone) {unterminated}']);
    expect(events(bytes('\x1b]0;abc'))).toEqual(['osc@0+7 OSC 0 set icon name and window title {unterminated}']);
    expect(events(bytes('\x1bP1$'))).toEqual(['dcs@0+4 DCS (no header) {unterminated}']);
    expect(events(bytes('\x1b_abc'))).toEqual(['apc@0+5 APC application program command {unterminated}']);
    expect(events(bytes('\x1b]0;abc\x1b'))).toEqual(['osc@0+8 OSC 0 set icon name and window title {unterminated}']);
  });

  it('an unterminated OSC swallows everything after it', () => {
    expect(events(bytes('a\x1b]0;evil\nmore text\n'))).toEqual(['text "a"@0', 'osc@1+19 OSC 0 set icon name and window title {unterminated}']);
  });

  it('oversized OSC: the limit counts the payload after ESC ] (command included), flagged only past it', () => {
    // "0;ab" is 4 payload bytes.
    expect(events(bytes('\x1b]0;ab\x07X'), { maxStringBytes: 4 })).toEqual(['osc@0+7 OSC 0 set icon name and window title', 'text "X"@7']);
    expect(events(bytes('\x1b]0;abc\x07X'), { maxStringBytes: 4 })).toEqual(['osc@0+8 OSC 0 set icon name and window title {oversized}', 'text "X"@8']);
  });

  it('oversized and unterminated together', () => {
    expect(events(bytes('\x1b]0;abcdef'), { maxStringBytes: 3 })).toEqual(['osc@0+10 OSC 0 set icon name and window title {unterminated,oversized}']);
  });

  it('oversized payload of DCS (after the header), APC and 8-bit OSC', () => {
    expect(events(bytes('\x1bPqabc\x1b\\X'), { maxStringBytes: 3 })).toEqual(['dcs@0+8 DCS sixel graphics', 'text "X"@8']);
    expect(events(bytes('\x1bPqabcd\x1b\\X'), { maxStringBytes: 3 })).toEqual(['dcs@0+9 DCS sixel graphics {oversized}', 'text "X"@9']);
    expect(events(bytes('\x1b_abcd\x1b\\X'), { maxStringBytes: 3 })).toEqual(['apc@0+8 APC application program command {oversized}', 'text "X"@8']);
    expect(events(bytes('\x9d0;abcd\x9cX'), { maxStringBytes: 3 })).toEqual(['osc@0+8 OSC 0 set icon name and window title {oversized,8bit,stray}', 'text "X"@8']);
  });

  it('oversized CSI parameter run: exactly at the limit is fine, one more is oversized', () => {
    expect(events(bytes('\x1b[1;2mX'), { maxCsiParamBytes: 3 })).toEqual(['csi@0+6 SGR select graphic rendition', 'text "X"@6']);
    expect(events(bytes('\x1b[1;22mX'), { maxCsiParamBytes: 3 })).toEqual(['csi@0+7 SGR select graphic rendition {oversized}', 'text "X"@7']);
    // Private marker and intermediates count too.
    expect(events(bytes('\x1b[?25 qX'), { maxCsiParamBytes: 3 })).toEqual(['csi@0+7 CSI sequence (unknown) {oversized}', 'text "X"@7']);
  });

  it('oversized DCS header and ESC intermediates', () => {
    expect(events(bytes('\x1bP1;2;3q\x1b\\X'), { maxCsiParamBytes: 2 })).toEqual(['dcs@0+10 DCS sixel graphics {oversized}', 'text "X"@10']);
    expect(events(bytes('\x1b(BX'), { maxEscIntermediates: 1 })).toEqual(['esc@0+3 designate character set', 'text "X"@3']);
    expect(events(bytes('\x1b((BX'), { maxEscIntermediates: 1 })).toEqual(['esc@0+4 designate character set {oversized}', 'text "X"@4']);
  });

  it('an oversized sequence still consumes up to its terminator: nothing leaks as text', () => {
    const rec = record(bytes('\x1b]0;', 'A'.repeat(1000), '\x07ok'), { maxStringBytes: 10 });
    expect(rec.text()).toBe('ok');
    const csi = record(bytes('\x1b[', '1;'.repeat(1000), 'mok'), { maxCsiParamBytes: 10 });
    expect(csi.text()).toBe('ok');
  });

  it('default limits: 64 KiB string, 256 header bytes', () => {
    const big = record(bytes('\x1b]0;', 'a'.repeat(64 * 1024 - 2), '\x07'));
    expect(big.spans()[0].flags).toBe(0);
    const over = record(bytes('\x1b]0;', 'a'.repeat(64 * 1024 - 1), '\x07'));
    expect(over.spans()[0].flags).toBe(SpanFlag.Oversized);
    expect(record(bytes('\x1b[', '1'.repeat(256), 'm')).spans()[0].flags).toBe(0);
    expect(record(bytes('\x1b[', '1'.repeat(257), 'm')).spans()[0].flags).toBe(SpanFlag.Oversized);
  });

  it('malformed: aborted, interrupted, or sent to an ignore state', () => {
    const flags = (s: string) => record(bytes(s)).spans()[0].flags;
    expect(flags('\x1b[1\x18')).toBe(SpanFlag.Malformed);
    expect(flags('\x1b[1\x1b7')).toBe(SpanFlag.Malformed);
    expect(flags('\x1b[1?m')).toBe(SpanFlag.Malformed);
    expect(flags('\x1bP1?q\x1b\\')).toBe(SpanFlag.Malformed);
  });

  it('eight-bit and utf8-encoded', () => {
    expect(record(bytes('\x9bm')).spans()[0].flags).toBe(SpanFlag.EightBit | SpanFlag.Stray);
    expect(record(bytes('\xc2\x9bm')).spans()[0].flags).toBe(SpanFlag.EightBit | SpanFlag.Utf8Encoded);
    expect(record(bytes('\xc2\x84')).spans()[0].flags).toBe(SpanFlag.Utf8Encoded);
    expect(record(bytes('\x84')).spans()[0].flags).toBe(SpanFlag.Stray);
  });
});

describe('offsets and lengths', () => {
  const corpus = bytes(
    'build: \x1b[31mFAIL\x1b[0m\n', '\x9b1A', utf8('€\u009b2J本'), '\x1b]8;;https://x\x1b\\label\x1b]8;;\x07',
    '\x1bP$qm\x1b\\', '\x1b_apc\x9c', '\xe2\x82', 'A\xff', utf8('\u202e\u{e0041}'), '\x1b[1\r\nA', '\x1b]0;t\x18', 'tail\x1b]2;unterminated',
  );

  it('every byte is covered exactly once by a top-level event, nested controls lie inside their sequence', () => {
    expect(tilingProblem(record(corpus).events, corpus.length)).toBeNull();
  });

  it('spans of a sample carry exact offsets and lengths', () => {
    expect(events(corpus)).toEqual([
      'text "build: "@0',
      'csi@7+5 SGR select graphic rendition',
      'text "FAIL"@12',
      'csi@16+4 SGR select graphic rendition',
      'text "\\n"@20',
      'csi@21+3 CUU cursor up {8bit,stray}',
      'text "€"@24',
      'csi@27+4 ED erase display (all) {8bit,utf8}',
      'text "本"@31',
      'osc@34+16 OSC 8 hyperlink (open)',
      'text "label"@50',
      'osc@55+6 OSC 8 hyperlink (close)',
      'dcs@61+7 DECRQSS request setting (query)',
      // 0x9C ends the APC for an 8-bit terminal only: xterm.js and tmux are still in it, so A is withheld.
      'apc@68+6 APC application program command {stray}',
      'invalid_utf8@74+1 invalid UTF-8',
      'invalid_utf8@75+1 invalid UTF-8 (8-bit terminal: BPH break permitted here) {stray}',
      'withheld@76+1 text not every terminal reading shows',
      'invalid_utf8@77+1 invalid UTF-8',
      'invisible@78+3 bidi embedding/override control',
      'invisible@81+4 tag character (ASCII smuggling)',
      'c0@88+1 CR carriage return',
      'text "\\n"@89',
      'csi@85+6 CUU cursor up',
      'osc@91+5 OSC 0 set icon name and window title {malformed}',
      'c0@96+1 CAN cancel',
      'text "tail"@97',
      `osc@101+${corpus.length - 101} OSC 2 set window title {unterminated}`,
    ]);
  });

  it('Parser.offset counts every byte fed', () => {
    const p = new Parser(new NoopSink());
    p.feed(bytes('abc'));
    p.feed(bytes('\x1b['));
    expect(p.offset).toBe(5);
    p.end();
    expect(() => p.feed(bytes('x'))).toThrow();
  });

  it('end() is idempotent', () => {
    const rec = record([]);
    expect(rec.events).toEqual([]);
    const p = new Parser(rec);
    p.feed(bytes('\x1b['));
    p.end();
    p.end();
    expect(rec.lines()).toEqual(['csi@0+2 CSI sequence (incomplete) {unterminated}']);
  });
});
