// `airlock sanitize` as the outside contract states it: stdin to sanitized stdout (and nothing
// else), the report as JSON without payloads, clear errors for bad invocations.
import { mkdtempSync, readFileSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-sanitize-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DONE_WHEN = 'build: \x1b[31mFAIL\x1b[0m\n\x1b]52;c;ZXZpbA==\x07ok\n';

describe('airlock sanitize', () => {
  it('prints only the sanitized text and writes a payload-free report (the issue example)', async () => {
    const report = join(dir, 'r.json');
    const r = await runAirlock(['sanitize', '--report', report], { stdin: DONE_WHEN });
    expect(r.code).toBe(0);
    expect(r.out.toString('utf8')).toBe('build: FAIL\nok\n');
    expect(r.err).toBe('');
    const text = readFileSync(report, 'utf8');
    const json = JSON.parse(text);
    expect(json.meanings['csi: SGR select graphic rendition']).toBe(2);
    expect(json.meanings['osc: OSC 52 clipboard access']).toBe(1);
    expect(json.classes.osc.count).toBe(1);
    expect(json.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(text).not.toContain('ZXZpbA');
    expect(text).not.toContain('\x1b');
  });

  it('applies --cr overwrite', async () => {
    const r = await runAirlock(['sanitize', '--cr', 'overwrite'], { stdin: 'working 10%\rworking 20%\rfailure\n' });
    expect(r.out.toString('utf8')).toBe('failure 20%\n');
  });

  it('stops at --max-bytes and says so in the report and on stderr', async () => {
    const report = join(dir, 'r.json');
    const r = await runAirlock(['sanitize', '--max-bytes', '4', '--report', report], { stdin: 'abcdefgh' });
    expect(r.code).toBe(0);
    expect(r.out.toString()).toBe('abcd');
    expect(r.err).toContain('truncated at 4 bytes');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ truncated: true, input_bytes: 4 });
  });

  it.each([
    [['--cr', 'sideways'], /--cr must be 'newline' or 'overwrite'/],
    [['--max-bytes', 'lots'], /--max-bytes needs a positive byte count/],
    [['--max-bytes', '0'], /--max-bytes needs a positive byte count/],
    [['--bogus'], /unknown option '--bogus'/],
    [['--report'], /--report needs a value/],
    [['a.bin', 'b.bin'], /unexpected argument 'b.bin'/],
  ])('rejects %j with a usage error', async (args, message) => {
    const r = await runAirlock(['sanitize', ...args], { stdin: 'x' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out.length).toBe(0);
  });

  it('fails clearly on an unwritable report path and leaves no temp file behind', async () => {
    const r = await runAirlock(['sanitize', '--report', join(dir, 'missing', 'r.json')], { stdin: 'x' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot write the report to .*missing/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never echoes control bytes of a bad argument to the terminal', async () => {
    const r = await runAirlock(['sanitize', '--\x1b]0;pwn\x07'], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.err).not.toMatch(/[\x1b\x07]/);
  });

  it('handles empty input', async () => {
    const report = join(dir, 'r.json');
    const r = await runAirlock(['sanitize', '--report', report], { stdin: '' });
    expect(r.code).toBe(0);
    expect(r.out.length).toBe(0);
    expect(existsSync(report)).toBe(true);
  });
});
