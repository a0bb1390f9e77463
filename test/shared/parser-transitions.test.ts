/**
 * Proves that the parser implements the DEC/VT500 state diagram (vt100.net/emu/dec_ansi_parser)
 * with exactly the departures documented in transition-table.ts. One `it` per transition, i.e. per
 * (state × byte class); each asserts:
 *
 * 1. the packed TRANSITIONS table: for every unit of the class, the entry `action << 4 | next`
 *    equals an independent specification (test/helpers/vt500-spec.ts, written from the diagram,
 *    not derived from the implementation);
 * 2. observable behaviour: the parser is put into the state with a prefix (`ESC [` for csi_entry,
 *    `ESC [ 1 ?` for csi_ignore, `ESC P q` for dcs_passthrough, …), fed the class's sample unit,
 *    then the probe `q ESC \ X`, then end(). The exact events (text runs, spans with offset,
 *    length, meaning and flags) are asserted. The probe reveals the resulting state: in ground `q`
 *    is text; after ESC it is an ESC final; in a CSI it is the final (DECLL); in a DCS header it
 *    hooks (the meaning shows which header was collected); in a string it is payload and `ESC \`
 *    terminates it; `X` shows the parser is back in ground.
 * 3. the same events when the input is fed one byte per chunk (state survives chunk boundaries
 *    for every transition).
 */
import { describe, expect, it } from 'vitest';
import { Action, State, STATE_COUNT, STATE_NAMES } from '../../shared/parser/states';
import { TRANSITIONS } from '../../shared/parser/transition-table';
import { bytes, bytewise, events } from '../helpers/record';
import { A, CLASSES, PREFIX, range, S, spec, STATES, type StateName } from '../helpers/vt500-spec';

const PROBE = 'q\x1b\\X';

/**
 * Events of PREFIX[state] + class sample + PROBE, then end(). Reviewed by hand against the
 * diagram. Reading guide: `c0@3+1 CR carriage return` is a span of class c0 at stream offset 3,
 * one byte long; a control executed inside a CSI or ESC (VT500: C0 executes there) is reported
 * before the sequence that encloses it; `{malformed}` marks a sequence aborted, interrupted or
 * sent to an ignore state.
 */
const GOLDEN: Record<StateName, Record<string, string[]>> = {
  ground: {
    'C0 control (CR as sample)': ['c0@0+1 CR carriage return', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'BEL': ['c0@0+1 BEL bell', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'TAB/LF': ['text "\\nq"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'CAN/SUB': ['c0@0+1 CAN cancel', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'ESC': ['esc@0+2 ESC sequence (unknown)', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'intermediate 0x20-0x2F ($ as sample)': ['text "$q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'digit or ; (1 as sample)': ['text "1q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'colon': ['text ":q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'private marker 0x3C-0x3F (? as sample)': ['text "?q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'final 0x40-0x7E (m as sample)': ['text "mq"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'P': ['text "Pq"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'X ^ _ (_ as sample)': ['text "_q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    '[': ['text "[q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    ']': ['text "]q"@0', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'DEL': ['c0@0+1 DEL delete', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'C1 control (raw 0x84 IND as sample)': ['invalid_utf8@0+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'C1 DCS 0x90': ['dcs@0+4 DCS sixel graphics {8bit,stray}', 'text "X"@4'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['apc@0+4 APC application program command {8bit,stray}', 'text "X"@4'],
    'C1 CSI 0x9B': ['csi@0+2 DECLL load LEDs {8bit,stray}', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'C1 ST 0x9C': ['invalid_utf8@0+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'C1 OSC 0x9D': ['osc@0+4 OSC without numeric command {8bit,stray}', 'text "X"@4'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['text "本q"@0', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'UTF-8 invisible (U+202E as sample)': ['invisible@0+3 bidi embedding/override control', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'invalid UTF-8 (0xFF as sample)': ['invalid_utf8@0+1 invalid UTF-8', 'text "q"@1', 'esc@2+2 ST string terminator (stray)', 'text "X"@4'],
    'BOM U+FEFF': ['invisible@0+3 zero-width character', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
  },
  escape: {
    'C0 control (CR as sample)': ['c0@1+1 CR carriage return', 'esc@0+3 ESC sequence (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'BEL': ['c0@1+1 BEL bell', 'esc@0+3 ESC sequence (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'TAB/LF': ['text "\\n"@1', 'esc@0+3 ESC sequence (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'CAN/SUB': ['esc@0+1 ESC escape (lone) {malformed}', 'c0@1+1 CAN cancel', 'text "q"@2', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'ESC': ['esc@0+1 ESC escape (lone) {malformed}', 'esc@1+2 ESC sequence (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'intermediate 0x20-0x2F ($ as sample)': ['esc@0+3 ESC sequence with intermediate (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'digit or ; (1 as sample)': ['esc@0+2 ESC sequence (unknown)', 'text "q"@2', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'colon': ['esc@0+2 ESC sequence (unknown)', 'text "q"@2', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'private marker 0x3C-0x3F (? as sample)': ['esc@0+2 ESC sequence (unknown)', 'text "q"@2', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'final 0x40-0x7E (m as sample)': ['esc@0+2 memory unlock', 'text "q"@2', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'P': ['dcs@0+5 DCS sixel graphics', 'text "X"@5'],
    'X ^ _ (_ as sample)': ['apc@0+5 APC application program command', 'text "X"@5'],
    '[': ['csi@0+3 DECLL load LEDs', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    ']': ['osc@0+5 OSC without numeric command', 'text "X"@5'],
    'DEL': ['esc@0+3 ESC sequence (unknown)', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'C1 control (raw 0x84 IND as sample)': ['esc@0+1 ESC escape (lone) {malformed}', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@2+1 text not every terminal reading shows', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'C1 DCS 0x90': ['esc@0+1 ESC escape (lone) {malformed}', 'dcs@1+4 DCS sixel graphics {8bit,stray}', 'text "X"@5'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['esc@0+1 ESC escape (lone) {malformed}', 'apc@1+4 APC application program command {8bit,stray}', 'text "X"@5'],
    'C1 CSI 0x9B': ['esc@0+1 ESC escape (lone) {malformed}', 'csi@1+2 DECLL load LEDs {8bit,stray}', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'C1 ST 0x9C': ['esc@0+1 ESC escape (lone) {malformed}', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@2+1 text not every terminal reading shows', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'C1 OSC 0x9D': ['esc@0+1 ESC escape (lone) {malformed}', 'osc@1+4 OSC without numeric command {8bit,stray}', 'text "X"@5'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['esc@0+5 ESC sequence (unknown) {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'UTF-8 invisible (U+202E as sample)': ['esc@0+5 ESC sequence (unknown) {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'invalid UTF-8 (0xFF as sample)': ['esc@0+3 ESC sequence (unknown) {malformed}', 'esc@3+2 ST string terminator (stray)', 'text "X"@5'],
    'BOM U+FEFF': ['esc@0+5 ESC sequence (unknown) {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
  },
  escape_intermediate: {
    'C0 control (CR as sample)': ['c0@2+1 CR carriage return', 'esc@0+4 designate character set', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'BEL': ['c0@2+1 BEL bell', 'esc@0+4 designate character set', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'TAB/LF': ['text "\\n"@2', 'esc@0+4 designate character set', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'CAN/SUB': ['esc@0+2 ESC escape (lone) {malformed}', 'c0@2+1 CAN cancel', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'ESC': ['esc@0+2 ESC escape (lone) {malformed}', 'esc@2+2 ESC sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'intermediate 0x20-0x2F ($ as sample)': ['esc@0+4 designate character set', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'digit or ; (1 as sample)': ['esc@0+3 designate character set', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'colon': ['esc@0+3 designate character set', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'private marker 0x3C-0x3F (? as sample)': ['esc@0+3 designate character set', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'final 0x40-0x7E (m as sample)': ['esc@0+3 designate character set', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'P': ['esc@0+3 designate character set', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'X ^ _ (_ as sample)': ['esc@0+3 designate character set', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    '[': ['esc@0+3 designate character set', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    ']': ['esc@0+3 designate character set', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'DEL': ['esc@0+4 designate character set', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 control (raw 0x84 IND as sample)': ['esc@0+2 ESC escape (lone) {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 DCS 0x90': ['esc@0+2 ESC escape (lone) {malformed}', 'dcs@2+4 DCS sixel graphics {8bit,stray}', 'text "X"@6'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['esc@0+2 ESC escape (lone) {malformed}', 'apc@2+4 APC application program command {8bit,stray}', 'text "X"@6'],
    'C1 CSI 0x9B': ['esc@0+2 ESC escape (lone) {malformed}', 'csi@2+2 DECLL load LEDs {8bit,stray}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 ST 0x9C': ['esc@0+2 ESC escape (lone) {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 OSC 0x9D': ['esc@0+2 ESC escape (lone) {malformed}', 'osc@2+4 OSC without numeric command {8bit,stray}', 'text "X"@6'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['esc@0+6 designate character set {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'UTF-8 invisible (U+202E as sample)': ['esc@0+6 designate character set {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'invalid UTF-8 (0xFF as sample)': ['esc@0+4 designate character set {malformed}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'BOM U+FEFF': ['esc@0+6 designate character set {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
  },
  csi_entry: {
    'C0 control (CR as sample)': ['c0@2+1 CR carriage return', 'csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'BEL': ['c0@2+1 BEL bell', 'csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'TAB/LF': ['text "\\n"@2', 'csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'CAN/SUB': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'c0@2+1 CAN cancel', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'ESC': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'esc@2+2 ESC sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'intermediate 0x20-0x2F ($ as sample)': ['csi@0+4 CSI sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'digit or ; (1 as sample)': ['csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'colon': ['csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'private marker 0x3C-0x3F (? as sample)': ['csi@0+4 CSI sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'final 0x40-0x7E (m as sample)': ['csi@0+3 SGR select graphic rendition', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'P': ['csi@0+3 DCH delete characters', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'X ^ _ (_ as sample)': ['csi@0+3 CSI sequence (unknown)', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    '[': ['csi@0+3 CSI sequence (unknown)', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    ']': ['csi@0+3 CSI sequence (unknown)', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'DEL': ['csi@0+4 DECLL load LEDs', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 control (raw 0x84 IND as sample)': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 DCS 0x90': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'dcs@2+4 DCS sixel graphics {8bit,stray}', 'text "X"@6'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'apc@2+4 APC application program command {8bit,stray}', 'text "X"@6'],
    'C1 CSI 0x9B': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'csi@2+2 DECLL load LEDs {8bit,stray}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 ST 0x9C': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 OSC 0x9D': ['csi@0+2 CSI sequence (incomplete) {malformed}', 'osc@2+4 OSC without numeric command {8bit,stray}', 'text "X"@6'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'UTF-8 invisible (U+202E as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'invalid UTF-8 (0xFF as sample)': ['csi@0+4 DECLL load LEDs {malformed}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'BOM U+FEFF': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
  },
  csi_param: {
    'C0 control (CR as sample)': ['c0@3+1 CR carriage return', 'csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'BEL': ['c0@3+1 BEL bell', 'csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'TAB/LF': ['text "\\n"@3', 'csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'CAN/SUB': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'c0@3+1 CAN cancel', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'ESC': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'esc@3+2 ESC sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'intermediate 0x20-0x2F ($ as sample)': ['csi@0+5 CSI sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'digit or ; (1 as sample)': ['csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'colon': ['csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'private marker 0x3C-0x3F (? as sample)': ['csi@0+5 DECLL load LEDs {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'final 0x40-0x7E (m as sample)': ['csi@0+4 SGR select graphic rendition', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'P': ['csi@0+4 DCH delete characters', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'X ^ _ (_ as sample)': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    '[': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    ']': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'DEL': ['csi@0+5 DECLL load LEDs', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 control (raw 0x84 IND as sample)': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 DCS 0x90': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'dcs@3+4 DCS sixel graphics {8bit,stray}', 'text "X"@7'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'apc@3+4 APC application program command {8bit,stray}', 'text "X"@7'],
    'C1 CSI 0x9B': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'csi@3+2 DECLL load LEDs {8bit,stray}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 ST 0x9C': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 OSC 0x9D': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'osc@3+4 OSC without numeric command {8bit,stray}', 'text "X"@7'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['csi@0+7 DECLL load LEDs {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
    'UTF-8 invisible (U+202E as sample)': ['csi@0+7 DECLL load LEDs {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
    'invalid UTF-8 (0xFF as sample)': ['csi@0+5 DECLL load LEDs {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'BOM U+FEFF': ['csi@0+7 DECLL load LEDs {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
  },
  csi_intermediate: {
    'C0 control (CR as sample)': ['c0@3+1 CR carriage return', 'csi@0+5 DECSCUSR cursor style', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'BEL': ['c0@3+1 BEL bell', 'csi@0+5 DECSCUSR cursor style', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'TAB/LF': ['text "\\n"@3', 'csi@0+5 DECSCUSR cursor style', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'CAN/SUB': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'c0@3+1 CAN cancel', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'ESC': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'esc@3+2 ESC sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'intermediate 0x20-0x2F ($ as sample)': ['csi@0+5 DECSCUSR cursor style', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'digit or ; (1 as sample)': ['csi@0+5 DECSCUSR cursor style {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'colon': ['csi@0+5 DECSCUSR cursor style {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'private marker 0x3C-0x3F (? as sample)': ['csi@0+5 DECSCUSR cursor style {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'final 0x40-0x7E (m as sample)': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'P': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'X ^ _ (_ as sample)': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    '[': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    ']': ['csi@0+4 CSI sequence (unknown)', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'DEL': ['csi@0+5 DECSCUSR cursor style', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 control (raw 0x84 IND as sample)': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 DCS 0x90': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'dcs@3+4 DCS sixel graphics {8bit,stray}', 'text "X"@7'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'apc@3+4 APC application program command {8bit,stray}', 'text "X"@7'],
    'C1 CSI 0x9B': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'csi@3+2 DECLL load LEDs {8bit,stray}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 ST 0x9C': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 OSC 0x9D': ['csi@0+3 CSI sequence (incomplete) {malformed}', 'osc@3+4 OSC without numeric command {8bit,stray}', 'text "X"@7'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['csi@0+7 DECSCUSR cursor style {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
    'UTF-8 invisible (U+202E as sample)': ['csi@0+7 DECSCUSR cursor style {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
    'invalid UTF-8 (0xFF as sample)': ['csi@0+5 DECSCUSR cursor style {malformed}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'BOM U+FEFF': ['csi@0+7 DECSCUSR cursor style {malformed}', 'esc@7+2 ST string terminator (stray)', 'text "X"@9'],
  },
  csi_ignore: {
    'C0 control (CR as sample)': ['c0@4+1 CR carriage return', 'csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'BEL': ['c0@4+1 BEL bell', 'csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'TAB/LF': ['text "\\n"@4', 'csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'CAN/SUB': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'c0@4+1 CAN cancel', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'ESC': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'esc@4+2 ESC sequence (unknown)', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'intermediate 0x20-0x2F ($ as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'digit or ; (1 as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'colon': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'private marker 0x3C-0x3F (? as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'final 0x40-0x7E (m as sample)': ['csi@0+5 SGR select graphic rendition {malformed}', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'P': ['csi@0+5 DCH delete characters {malformed}', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'X ^ _ (_ as sample)': ['csi@0+5 CSI sequence (unknown) {malformed}', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    '[': ['csi@0+5 CSI sequence (unknown) {malformed}', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    ']': ['csi@0+5 CSI sequence (unknown) {malformed}', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'DEL': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 control (raw 0x84 IND as sample)': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'invalid_utf8@4+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 DCS 0x90': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'dcs@4+4 DCS sixel graphics {8bit,stray}', 'text "X"@8'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'apc@4+4 APC application program command {8bit,stray}', 'text "X"@8'],
    'C1 CSI 0x9B': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'csi@4+2 DECLL load LEDs {8bit,stray}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 ST 0x9C': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'invalid_utf8@4+1 invalid UTF-8 (8-bit terminal: ST string terminator (stray)) {stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 OSC 0x9D': ['csi@0+4 CSI sequence (incomplete) {malformed}', 'osc@4+4 OSC without numeric command {8bit,stray}', 'text "X"@8'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['csi@0+8 DECLL load LEDs {malformed}', 'esc@8+2 ST string terminator (stray)', 'text "X"@10'],
    'UTF-8 invisible (U+202E as sample)': ['csi@0+8 DECLL load LEDs {malformed}', 'esc@8+2 ST string terminator (stray)', 'text "X"@10'],
    'invalid UTF-8 (0xFF as sample)': ['csi@0+6 DECLL load LEDs {malformed}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'BOM U+FEFF': ['csi@0+8 DECLL load LEDs {malformed}', 'esc@8+2 ST string terminator (stray)', 'text "X"@10'],
  },
  dcs_entry: {
    'C0 control (CR as sample)': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'BEL': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'TAB/LF': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'CAN/SUB': ['dcs@0+2 DCS (no header) {malformed}', 'c0@2+1 CAN cancel', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'ESC': ['dcs@0+2 DCS (no header) {malformed}', 'esc@2+2 ESC sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'intermediate 0x20-0x2F ($ as sample)': ['dcs@0+6 DECRQSS request setting (query)', 'text "X"@6'],
    'digit or ; (1 as sample)': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'colon': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'private marker 0x3C-0x3F (? as sample)': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    'final 0x40-0x7E (m as sample)': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    'P': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    'X ^ _ (_ as sample)': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    '[': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    ']': ['dcs@0+6 DCS unknown', 'text "X"@6'],
    'DEL': ['dcs@0+6 DCS sixel graphics', 'text "X"@6'],
    'C1 control (raw 0x84 IND as sample)': ['dcs@0+2 DCS (no header) {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 DCS 0x90': ['dcs@0+2 DCS (no header) {malformed}', 'dcs@2+4 DCS sixel graphics {8bit,stray}', 'text "X"@6'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['dcs@0+2 DCS (no header) {malformed}', 'apc@2+4 APC application program command {8bit,stray}', 'text "X"@6'],
    'C1 CSI 0x9B': ['dcs@0+2 DCS (no header) {malformed}', 'csi@2+2 DECLL load LEDs {8bit,stray}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 ST 0x9C': ['dcs@0+3 DCS (no header) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 OSC 0x9D': ['dcs@0+2 DCS (no header) {malformed}', 'osc@2+4 OSC without numeric command {8bit,stray}', 'text "X"@6'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['dcs@0+8 DCS sixel graphics {malformed}', 'text "X"@8'],
    'UTF-8 invisible (U+202E as sample)': ['dcs@0+8 DCS sixel graphics {malformed}', 'text "X"@8'],
    'invalid UTF-8 (0xFF as sample)': ['dcs@0+6 DCS sixel graphics {malformed}', 'text "X"@6'],
    'BOM U+FEFF': ['dcs@0+8 DCS sixel graphics {malformed}', 'text "X"@8'],
  },
  dcs_param: {
    'C0 control (CR as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'BEL': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'TAB/LF': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'CAN/SUB': ['dcs@0+3 DCS (no header) {malformed}', 'c0@3+1 CAN cancel', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'ESC': ['dcs@0+3 DCS (no header) {malformed}', 'esc@3+2 ESC sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'intermediate 0x20-0x2F ($ as sample)': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'digit or ; (1 as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'colon': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'private marker 0x3C-0x3F (? as sample)': ['dcs@0+7 DCS (no header) {malformed}', 'text "X"@7'],
    'final 0x40-0x7E (m as sample)': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'P': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'X ^ _ (_ as sample)': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    '[': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    ']': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'DEL': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'C1 control (raw 0x84 IND as sample)': ['dcs@0+3 DCS (no header) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 DCS 0x90': ['dcs@0+3 DCS (no header) {malformed}', 'dcs@3+4 DCS sixel graphics {8bit,stray}', 'text "X"@7'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['dcs@0+3 DCS (no header) {malformed}', 'apc@3+4 APC application program command {8bit,stray}', 'text "X"@7'],
    'C1 CSI 0x9B': ['dcs@0+3 DCS (no header) {malformed}', 'csi@3+2 DECLL load LEDs {8bit,stray}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 ST 0x9C': ['dcs@0+4 DCS (no header) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 OSC 0x9D': ['dcs@0+3 DCS (no header) {malformed}', 'osc@3+4 OSC without numeric command {8bit,stray}', 'text "X"@7'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['dcs@0+9 DCS sixel graphics {malformed}', 'text "X"@9'],
    'UTF-8 invisible (U+202E as sample)': ['dcs@0+9 DCS sixel graphics {malformed}', 'text "X"@9'],
    'invalid UTF-8 (0xFF as sample)': ['dcs@0+7 DCS sixel graphics {malformed}', 'text "X"@7'],
    'BOM U+FEFF': ['dcs@0+9 DCS sixel graphics {malformed}', 'text "X"@9'],
  },
  dcs_intermediate: {
    'C0 control (CR as sample)': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'BEL': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'TAB/LF': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'CAN/SUB': ['dcs@0+3 DCS (no header) {malformed}', 'c0@3+1 CAN cancel', 'text "q"@4', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'ESC': ['dcs@0+3 DCS (no header) {malformed}', 'esc@3+2 ESC sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'intermediate 0x20-0x2F ($ as sample)': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'digit or ; (1 as sample)': ['dcs@0+7 DCS (no header) {malformed}', 'text "X"@7'],
    'colon': ['dcs@0+7 DCS (no header) {malformed}', 'text "X"@7'],
    'private marker 0x3C-0x3F (? as sample)': ['dcs@0+7 DCS (no header) {malformed}', 'text "X"@7'],
    'final 0x40-0x7E (m as sample)': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'P': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'X ^ _ (_ as sample)': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    '[': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    ']': ['dcs@0+7 DCS unknown', 'text "X"@7'],
    'DEL': ['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7'],
    'C1 control (raw 0x84 IND as sample)': ['dcs@0+3 DCS (no header) {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 DCS 0x90': ['dcs@0+3 DCS (no header) {malformed}', 'dcs@3+4 DCS sixel graphics {8bit,stray}', 'text "X"@7'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['dcs@0+3 DCS (no header) {malformed}', 'apc@3+4 APC application program command {8bit,stray}', 'text "X"@7'],
    'C1 CSI 0x9B': ['dcs@0+3 DCS (no header) {malformed}', 'csi@3+2 DECLL load LEDs {8bit,stray}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 ST 0x9C': ['dcs@0+4 DCS (no header) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 OSC 0x9D': ['dcs@0+3 DCS (no header) {malformed}', 'osc@3+4 OSC without numeric command {8bit,stray}', 'text "X"@7'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['dcs@0+9 DECRQSS request setting (query) {malformed}', 'text "X"@9'],
    'UTF-8 invisible (U+202E as sample)': ['dcs@0+9 DECRQSS request setting (query) {malformed}', 'text "X"@9'],
    'invalid UTF-8 (0xFF as sample)': ['dcs@0+7 DECRQSS request setting (query) {malformed}', 'text "X"@7'],
    'BOM U+FEFF': ['dcs@0+9 DECRQSS request setting (query) {malformed}', 'text "X"@9'],
  },
  dcs_passthrough: {
    'C0 control (CR as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'BEL': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'TAB/LF': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'CAN/SUB': ['dcs@0+3 DCS sixel graphics {malformed}', 'c0@3+1 CAN cancel', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'ESC': ['dcs@0+3 DCS sixel graphics {malformed}', 'esc@3+2 ESC sequence (unknown)', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'intermediate 0x20-0x2F ($ as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'digit or ; (1 as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'colon': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'private marker 0x3C-0x3F (? as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'final 0x40-0x7E (m as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'P': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'X ^ _ (_ as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    '[': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    ']': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'DEL': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'C1 control (raw 0x84 IND as sample)': ['dcs@0+3 DCS sixel graphics {malformed}', 'invalid_utf8@3+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 DCS 0x90': ['dcs@0+3 DCS sixel graphics {malformed}', 'dcs@3+4 DCS sixel graphics {8bit,stray}', 'text "X"@7'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['dcs@0+3 DCS sixel graphics {malformed}', 'apc@3+4 APC application program command {8bit,stray}', 'text "X"@7'],
    'C1 CSI 0x9B': ['dcs@0+3 DCS sixel graphics {malformed}', 'csi@3+2 DECLL load LEDs {8bit,stray}', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 ST 0x9C': ['dcs@0+4 DCS sixel graphics {stray}', 'withheld@4+1 text not every terminal reading shows', 'esc@5+2 ST string terminator (stray)', 'text "X"@7'],
    'C1 OSC 0x9D': ['dcs@0+3 DCS sixel graphics {malformed}', 'osc@3+4 OSC without numeric command {8bit,stray}', 'text "X"@7'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['dcs@0+9 DCS sixel graphics', 'text "X"@9'],
    'UTF-8 invisible (U+202E as sample)': ['dcs@0+9 DCS sixel graphics', 'text "X"@9'],
    'invalid UTF-8 (0xFF as sample)': ['dcs@0+7 DCS sixel graphics', 'text "X"@7'],
    'BOM U+FEFF': ['dcs@0+9 DCS sixel graphics', 'text "X"@9'],
  },
  dcs_ignore: {
    'C0 control (CR as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'BEL': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'TAB/LF': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'CAN/SUB': ['dcs@0+4 DCS (no header) {malformed}', 'c0@4+1 CAN cancel', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'ESC': ['dcs@0+4 DCS (no header) {malformed}', 'esc@4+2 ESC sequence (unknown)', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'intermediate 0x20-0x2F ($ as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'digit or ; (1 as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'colon': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'private marker 0x3C-0x3F (? as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'final 0x40-0x7E (m as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'P': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'X ^ _ (_ as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    '[': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    ']': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'DEL': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'C1 control (raw 0x84 IND as sample)': ['dcs@0+4 DCS (no header) {malformed}', 'invalid_utf8@4+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 DCS 0x90': ['dcs@0+4 DCS (no header) {malformed}', 'dcs@4+4 DCS sixel graphics {8bit,stray}', 'text "X"@8'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['dcs@0+4 DCS (no header) {malformed}', 'apc@4+4 APC application program command {8bit,stray}', 'text "X"@8'],
    'C1 CSI 0x9B': ['dcs@0+4 DCS (no header) {malformed}', 'csi@4+2 DECLL load LEDs {8bit,stray}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 ST 0x9C': ['dcs@0+5 DCS (no header) {malformed,stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 OSC 0x9D': ['dcs@0+4 DCS (no header) {malformed}', 'osc@4+4 OSC without numeric command {8bit,stray}', 'text "X"@8'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['dcs@0+10 DCS (no header) {malformed}', 'text "X"@10'],
    'UTF-8 invisible (U+202E as sample)': ['dcs@0+10 DCS (no header) {malformed}', 'text "X"@10'],
    'invalid UTF-8 (0xFF as sample)': ['dcs@0+8 DCS (no header) {malformed}', 'text "X"@8'],
    'BOM U+FEFF': ['dcs@0+10 DCS (no header) {malformed}', 'text "X"@10'],
  },
  osc_string: {
    'C0 control (CR as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'BEL': ['osc@0+5 OSC 0 set icon name and window title', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'TAB/LF': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'CAN/SUB': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'c0@4+1 CAN cancel', 'text "q"@5', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'ESC': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'esc@4+2 ESC sequence (unknown)', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'intermediate 0x20-0x2F ($ as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'digit or ; (1 as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'colon': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'private marker 0x3C-0x3F (? as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'final 0x40-0x7E (m as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'P': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'X ^ _ (_ as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    '[': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    ']': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'DEL': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'C1 control (raw 0x84 IND as sample)': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'invalid_utf8@4+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 DCS 0x90': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'dcs@4+4 DCS sixel graphics {8bit,stray}', 'text "X"@8'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'apc@4+4 APC application program command {8bit,stray}', 'text "X"@8'],
    'C1 CSI 0x9B': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'csi@4+2 DECLL load LEDs {8bit,stray}', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 ST 0x9C': ['osc@0+5 OSC 0 set icon name and window title {stray}', 'withheld@5+1 text not every terminal reading shows', 'esc@6+2 ST string terminator (stray)', 'text "X"@8'],
    'C1 OSC 0x9D': ['osc@0+4 OSC 0 set icon name and window title {malformed}', 'osc@4+4 OSC without numeric command {8bit,stray}', 'text "X"@8'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['osc@0+10 OSC 0 set icon name and window title', 'text "X"@10'],
    'UTF-8 invisible (U+202E as sample)': ['osc@0+10 OSC 0 set icon name and window title', 'text "X"@10'],
    'invalid UTF-8 (0xFF as sample)': ['osc@0+8 OSC 0 set icon name and window title', 'text "X"@8'],
    'BOM U+FEFF': ['osc@0+10 OSC 0 set icon name and window title', 'text "X"@10'],
  },
  sos_pm_apc_string: {
    'C0 control (CR as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'BEL': ['apc@0+6 APC application program command', 'text "X"@6'],
    'TAB/LF': ['apc@0+6 APC application program command', 'text "X"@6'],
    'CAN/SUB': ['apc@0+2 APC application program command {malformed}', 'c0@2+1 CAN cancel', 'text "q"@3', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'ESC': ['apc@0+2 APC application program command {malformed}', 'esc@2+2 ESC sequence (unknown)', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'intermediate 0x20-0x2F ($ as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'digit or ; (1 as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'colon': ['apc@0+6 APC application program command', 'text "X"@6'],
    'private marker 0x3C-0x3F (? as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'final 0x40-0x7E (m as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'P': ['apc@0+6 APC application program command', 'text "X"@6'],
    'X ^ _ (_ as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    '[': ['apc@0+6 APC application program command', 'text "X"@6'],
    ']': ['apc@0+6 APC application program command', 'text "X"@6'],
    'DEL': ['apc@0+6 APC application program command', 'text "X"@6'],
    'C1 control (raw 0x84 IND as sample)': ['apc@0+2 APC application program command {malformed}', 'invalid_utf8@2+1 invalid UTF-8 (8-bit terminal: IND index) {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 DCS 0x90': ['apc@0+2 APC application program command {malformed}', 'dcs@2+4 DCS sixel graphics {8bit,stray}', 'text "X"@6'],
    'C1 SOS/PM/APC (raw 0x9F APC as sample)': ['apc@0+2 APC application program command {malformed}', 'apc@2+4 APC application program command {8bit,stray}', 'text "X"@6'],
    'C1 CSI 0x9B': ['apc@0+2 APC application program command {malformed}', 'csi@2+2 DECLL load LEDs {8bit,stray}', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 ST 0x9C': ['apc@0+3 APC application program command {stray}', 'withheld@3+1 text not every terminal reading shows', 'esc@4+2 ST string terminator (stray)', 'text "X"@6'],
    'C1 OSC 0x9D': ['apc@0+2 APC application program command {malformed}', 'osc@2+4 OSC without numeric command {8bit,stray}', 'text "X"@6'],
    'UTF-8 text (本 = E6 9C AC as sample)': ['apc@0+8 APC application program command', 'text "X"@8'],
    'UTF-8 invisible (U+202E as sample)': ['apc@0+8 APC application program command', 'text "X"@8'],
    'invalid UTF-8 (0xFF as sample)': ['apc@0+6 APC application program command', 'text "X"@6'],
    'BOM U+FEFF': ['apc@0+8 APC application program command', 'text "X"@8'],
  },

};

const CASES = STATES.flatMap((state) => CLASSES.map((cls) => {
  const [action, next] = spec(state, cls.units[0]);
  return { state, cls, action, next };
}));

describe('the byte classes', () => {
  it('partition the decoder units 0x00-0xA3 (each unit in exactly one class)', () => {
    const all = CLASSES.flatMap((c) => c.units).sort((a, b) => a - b);
    expect(all).toEqual(range(0x00, 0xa3));
  });

  it('have one golden entry per state and class', () => {
    for (const state of STATES) expect(Object.keys(GOLDEN[state]).sort()).toEqual(CLASSES.map((c) => c.name).sort());
  });
});

describe('the packed table', () => {
  it('has one 256-entry row per state, and the state numbering of the spec', () => {
    expect(TRANSITIONS.length).toBe(STATE_COUNT * 256);
    expect(STATE_COUNT).toBe(STATES.length);
    expect([...STATE_NAMES]).toEqual(STATES);
    expect(State.CsiIgnore).toBe(S.csi_ignore);
    expect(State.SosPmApcString).toBe(S.sos_pm_apc_string);
  });

  it('uses the documented action codes (entry = action << 4 | next)', () => {
    expect(Action.Ignore).toBe(A.ignore);
    expect(Action.Print).toBe(A.print);
    expect(Action.Execute).toBe(A.execute);
    expect(Action.EscStart).toBe(A.escStart);
    expect(Action.C1Start).toBe(A.c1Start);
    expect(Action.Collect).toBe(A.collect);
    expect(Action.Param).toBe(A.param);
    expect(Action.EscDispatch).toBe(A.escDispatch);
    expect(Action.CsiDispatch).toBe(A.csiDispatch);
    expect(Action.Enter).toBe(A.enter);
    expect(Action.Hook).toBe(A.hook);
    expect(Action.Put).toBe(A.put);
    expect(Action.StringEnd).toBe(A.stringEnd);
    expect(Action.Abort).toBe(A.abort);
    expect(Action.C1Execute).toBe(A.c1Execute);
  });

  it('never names a state outside the table', () => {
    for (const entry of TRANSITIONS) expect(entry & 0xf).toBeLessThan(STATE_COUNT);
  });

  it('leaves units 0xA4-0xFF (never produced by the UTF-8 decoder) as ignore-and-stay', () => {
    for (const state of STATES) {
      for (const unit of range(0xa4, 0xff)) expect(TRANSITIONS[(S[state] << 8) | unit]).toBe((A.ignore << 4) | S[state]);
    }
  });
});

describe.each(STATES)('state %s', (state) => {
  it.each(CASES.filter((c) => c.state === state).map((c) => [c.cls.name, c.action, c.next, c] as const))(
    '%s: %s -> %s',
    (_name, action, next, { cls }) => {
      // 1. The packed entry for every unit of the class.
      const want = (A[action] << 4) | S[next];
      for (const unit of cls.units) {
        const got = TRANSITIONS[(S[state] << 8) | unit];
        expect({ unit: unit.toString(16), entry: got }).toEqual({ unit: unit.toString(16), entry: want });
      }
      // 2. Behaviour, from the state's prefix, with the class sample and the probe.
      const input = bytes(PREFIX[state], cls.sample, PROBE);
      expect(events(input)).toEqual(GOLDEN[state][cls.name]);
      // 3. The same, one byte per chunk.
      expect(events(bytewise(input))).toEqual(GOLDEN[state][cls.name]);
    },
  );
});
