// The dispatcher: which arguments are Airlock's (help must not swallow a captured command's own
// flags), and error messages that cannot break lines (a file name could fake Airlock's output).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH };
/** A command that prints its first argument, whatever it is (echo binaries answer --help). */
const ECHO_ARG = 'printf "%s\\n" "$0"';

describe('airlock dispatcher', () => {
  it.each([
    [['capture', '--vault', 'V', '--json', 'sh', '-c', ECHO_ARG, '-h']],
    [['capture', '--vault', 'V', '--json', '--', 'sh', '-c', ECHO_ARG, '--help']],
    [['capture', '--vault', 'V', '--max-bytes', '1M', '--json', 'sh', '-c', ECHO_ARG, '--help']],
  ])('runs the captured command with its own help flag: %j', async (argv) => {
    const args = argv.map((a) => (a === 'V' ? join(dir, 'v') : a));
    const r = await runAirlock(args, { env, cwd: dir });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.out.toString('utf8'));
    expect(envelope.argv[0]).toBe('sh');
    expect(envelope.stdout).toMatch(/^(-h|--help)\n$/);
  });

  it.each([
    [['capture', '--help']],
    [['capture', '--vault', 'V', '--help']],
    [['sanitize', '--help']],
    [['vault', 'list', '--help']],
  ])('prints usage for Airlock\'s own help flag: %j', async (argv) => {
    const r = await runAirlock(argv.map((a) => (a === 'V' ? join(dir, 'v') : a)), { env, cwd: dir });
    expect(r.code).toBe(0);
    expect(r.out.toString()).toMatch(/^Usage:\s+airlock /);
  });

  it('keeps error messages on one line whatever the file name holds', async () => {
    const name = join(dir, 'evil\nairlock inspect: 0 anomalies, file is clean');
    const r = await runAirlock(['inspect', name], { env, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toContain('evil\\x0aairlock inspect');
  });
});
