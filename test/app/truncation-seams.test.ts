// Issue #9, bug class 6: with --max-text, head and tail must not join into a line the command
// never printed, and every human rendering marks the seam outside the untrusted text.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TextWindow } from '../../app/capture';
import { runAirlock } from '../helpers/cli';

const enc = new TextEncoder();
const TEXT = 'first line\nTests: 3 failed, 9 passed\n' + 'filler\n'.repeat(100) + 'Suites: all 312 passed\n';

describe('TextWindow cuts at line boundaries', () => {
  it('keeps only whole lines of the original when the halves hold line breaks', () => {
    for (const max of [40, 41, 64, 333]) {
      const w = new TextWindow(max);
      w.push(enc.encode(TEXT));
      const { text, truncation } = w.finish();
      expect(truncation, String(max)).not.toBeNull();
      const original = new Set(TEXT.split('\n'));
      for (const line of text.split('\n')) expect(original.has(line), `${max}: '${line}' was never printed`).toBe(true);
      expect(truncation!.at_line_boundaries).toBe(true);
    }
  });

  it('falls back to character boundaries inside one long line, and says so', () => {
    const w = new TextWindow(10);
    w.push(enc.encode('x'.repeat(100)));
    expect(w.finish().truncation).toMatchObject({ head_bytes: 5, tail_bytes: 5, at_line_boundaries: false });
  });
});

describe('the seam in human renderings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'airlock-seam-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('capture and vault show both print the seam line between head and tail rows', async () => {
    const vdir = join(dir, 'vault');
    const env = { PATH: process.env.PATH };
    const script = `printf 'first line\\nTests: 3 failed\\n'; i=0; while [ $i -lt 200 ]; do echo filler; i=$((i+1)); done; echo 'Suites: all 312 passed'`;
    const cap = await runAirlock(['capture', '--vault', vdir, '--max-text', '64', '--', 'sh', '-c', script], { env, cwd: dir });
    expect(cap.code).toBe(0);
    const seam = /^airlock: \.\.\. [\d.]+ (B|KiB) of stdout text omitted here \.\.\.$/m;
    for (const out of [cap.out.toString('utf8'), (await runAirlock(['vault', 'show', 'latest', '--vault', vdir], { env, cwd: dir })).out.toString('utf8')]) {
      const rows = out.split('\n');
      const at = rows.findIndex((r) => seam.test(r));
      expect(at, out).toBeGreaterThan(0);
      // (capture says where its live rows stopped, on an Airlock line before the seam)
      expect(rows.slice(0, at).filter((r) => !r.startsWith('airlock:')).at(-1)).toMatch(/^(out \d+\+?)?\| /);
      expect(rows[at + 1]).toMatch(/^(out \d+\+?)?\| /);
      expect(out).not.toContain('Tests: 3 failedSuites');
    }
  });
});
