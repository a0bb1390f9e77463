/**
 * The committed table of code points tmux does not draw (shared/parser/undrawn-table.ts) is what
 * the C library's wcwidth() says here, when it is the glibc the table was generated from (the
 * generator reads it through Python's ctypes); and the parser removes those code points.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUndrawn } from '../../shared/parser/invisible';
import { UNDRAWN_RANGES } from '../../shared/parser/undrawn-table';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { decodeStrict, utf8 } from '../helpers/record';

const PYTHON = '/usr/bin/python3';
const generatedWith = /wcwidth\(\) of glibc (\d+\.\d+)/.exec(readFileSync(resolve(__dirname, '../../shared/parser/undrawn-table.ts'), 'utf8'))?.[1];
/** This C library's version (`ldd --version`: "ldd (Debian GLIBC 2.36-9…) 2.36"). */
const glibc = /GLIBC (\d+\.\d+)/i.exec(spawnSync('ldd', ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1];

describe('undrawn code points', () => {
  it.runIf(existsSync(PYTHON) && glibc !== undefined && glibc === generatedWith)('the table matches this C library', () => {
    const r = spawnSync(PYTHON, [resolve(__dirname, '../../scripts/gen-undrawn-table.py'), '--check'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it('holds U+2028/U+2029 and unassigned code points, not assigned ones', () => {
    expect(UNDRAWN_RANGES.length % 2).toBe(0);
    for (const cp of [0x2028, 0x2029, 0x378, 0x1fae8]) expect(isUndrawn(cp), cp.toString(16)).toBe(true);
    for (const cp of [0xa0, 0x4e00, 0x1f600, 0xf0000, 0x2027]) expect(isUndrawn(cp), cp.toString(16)).toBe(false);
  });

  it('the sanitizer removes them and counts them as invisible', () => {
    const { text, report } = sanitize(utf8('a\u2028b\u{1fae8}c\u0378d'));
    expect(decodeStrict(text)).toBe('abcd');
    expect(report.invisible.other).toBe(3);
  });
});
