import { describe, expect, it } from 'vitest';
import { UsageError } from '../../app/cli/command';
import { parseDuration } from '../../app/cli/duration';
import { currentActor } from '../../app/audit/identity';
import { terminalSafe, terminalSafeJson, terminalSafeLine } from '../../app/terminal/terminal-safe';
import { parseFlags } from '../../app/cli/flags';

describe('parseDuration', () => {
  it('parses s, m, h, d', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('0d')).toBe(0);
  });
  it('rejects everything else', () => {
    for (const bad of ['', '7', 'd', '7D', '7 d', ' 7d', '7d ', '-1d', '1.5h', '7w', '7days', '1e3s', '0x10s', '999999999999999d']) {
      expect(() => parseDuration(bad), bad).toThrow(RangeError);
    }
  });
});

describe('terminalSafe', () => {
  it('escapes C0 (but not TAB/LF), DEL, C1, bidi controls and tag characters', () => {
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalSafe('\x1b[31mred\r\x00\x07\x7f')).toBe('\\x1b[31mred\\x0d\\x00\\x07\\x7f');
    expect(terminalSafe('\u009b2J\u0085')).toBe('\\x9b2J\\x85');
    expect(terminalSafe('\u202etxt.exe\u2066\u2069\u202a')).toBe('\\u{202e}txt.exe\\u{2066}\\u{2069}\\u{202a}');
    expect(terminalSafe('hi\u{e0041}\u{e007f}')).toBe('hi\\u{e0041}\\u{e007f}');
    expect(terminalSafe('€ 本 é \u00a0 😀')).toBe('€ 本 é \u00a0 😀');
  });
  it('line variant also escapes TAB and LF', () => {
    expect(terminalSafeLine('a\tb\nc')).toBe('a\\x09b\\x0ac');
  });
  it('JSON variant stays valid JSON and round-trips', () => {
    const value = { s: '\x1b]52;c;x\x07 \u009b \u202e \u{e0041} \x7f ok' };
    const json = terminalSafeJson(value);
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\u{e0041}/u);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('parseFlags', () => {
  const spec = { '--vault': 'value', '--json': 'flag' } as const;
  it('parses values, flags and positionals', () => {
    expect(parseFlags(['x', '--vault', 'd', '--json', 'y'], spec)).toEqual({ values: { '--vault': 'd' }, flags: new Set(['--json']), lists: {}, positionals: ['x', 'y'] });
    expect(parseFlags(['--vault=d', '--', '--json'], spec).positionals).toEqual(['--json']);
  });
  it('rejects unknown, missing, repeated and misused options', () => {
    for (const args of [['--bogus'], ['--vault'], ['--vault', '--json'], ['--vault='], ['--json', '--json'], ['--json=1'], ['--vault', 'a', '--vault', 'b'], ['-v']]) {
      expect(() => parseFlags(args, spec), args.join(' ')).toThrow(UsageError);
    }
  });
  it('keeps control bytes out of its error messages', () => {
    expect(() => parseFlags(['--\x1b]0;pwn\x07'], spec)).toThrow(/--\\x1b\]0;pwn\\x07/);
  });
});

describe('currentActor', () => {
  it('returns printable ASCII user and host', () => {
    const a = currentActor();
    expect(a.user).toMatch(/^[\x20-\x7e]{1,64}$/);
    expect(a.host).toMatch(/^[\x20-\x7e]{1,64}$/);
  });
});
