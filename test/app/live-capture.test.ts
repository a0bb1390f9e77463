// #41 item 1: `airlock capture` shows each sanitized line as it arrives, on a terminal or into a
// pipe; partial lines once the command pauses (never a byte a redaction could take); CR progress
// collapsed and said so; --json keeps one envelope at the end.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

const CLI = join(__dirname, '../../dist/airlock.mjs');
const env = { PATH: process.env.PATH };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-live-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the built CLI with stdout a real pipe; resolves each chunk of output with its arrival time. */
function spawnCapture(args: string[]): { chunks: { t: number; text: string }[]; done: Promise<number | null>; started: number } {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'capture', '--vault', join(dir, 'v'), '--sandbox', 'none', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: dir });
  const chunks: { t: number; text: string }[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push({ t: performance.now(), text: d.toString('utf8') }));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { chunks, done, started };
}

/** When `pattern` first appeared in the output (ms since the header line), or null. */
function seenAt(chunks: readonly { t: number; text: string }[], pattern: RegExp): number | null {
  let text = '';
  let header: number | null = null;
  for (const c of chunks) {
    text += c.text;
    if (header === null && text.includes('\n')) header = c.t;
    if (pattern.test(text)) return c.t - (header ?? c.t);
  }
  return null;
}

describe.skipIf(!existsSync(CLI))('airlock capture streams through a pipe (dist/airlock.mjs)', () => {
  it('shows the first line within a second, while the command still sleeps', async () => {
    const run = spawnCapture(['--', 'sh', '-c', 'echo first; sleep 3; echo second']);
    expect(await run.done).toBe(0);
    const first = seenAt(run.chunks, /^out \d+\| first$/m);
    const second = seenAt(run.chunks, /^out \d+\| second$/m);
    expect(first).not.toBeNull();
    // From the header (printed as the command starts) to the first line: well under the sleep.
    expect(first!).toBeLessThan(1000);
    expect(second! - first!).toBeGreaterThan(2000);
    expect(run.chunks.map((c) => c.text).join('')).toMatch(/\n--- end ---\n$/);
  }, 20_000);

  it('shows a partial line once the command pauses, and never the start of a secret', async () => {
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    const script = `printf 'Continue? [y/N] '; sleep 1.5; echo y; printf 'value ${token.slice(0, 12)}'; sleep 1.5; printf '${token.slice(12)} done\\n'; printf 'no newline at all'; sleep 1.5`;
    const run = spawnCapture(['--', 'sh', '-c', script]);
    expect(await run.done).toBe(0);
    // The prompt is shown (its row still open) before the command goes on.
    const prompt = seenAt(run.chunks, /^out \d+\| Continue\? \[y\/N\] $/m);
    const end = seenAt(run.chunks, /^--- end ---$/m);
    expect(prompt).not.toBeNull();
    expect(prompt!).toBeLessThan(1400);
    // The unfinished line without a newline shows before the command ends.
    expect(seenAt(run.chunks, /no newline at all/)!).toBeLessThan(end! - 700);
    const out = run.chunks.map((c) => c.text).join('');
    // (the header names the command, whose argv holds the token: only the rows are output)
    expect(out.split('\n').filter((l) => !l.startsWith('airlock:')).join('\n')).not.toContain('ghp_');
    expect(out).toMatch(/^out \d+\| Continue\? \[y\/N\] y$/m);
    expect(out).toMatch(/^out \d+\| value ⟦redacted:github-token⟧ done$/m);
    expect(out).toContain('airlock: (no newline at the end of stdout)');
  }, 20_000);
});

describe('airlock capture: live rows', () => {
  it('collapses CR-redrawn progress and says so; every line stays in the record', async () => {
    const script = 'i=0; while [ $i -lt 200 ]; do printf "progress %d%%\\r" $i; i=$((i+1)); done; echo; echo done';
    const r = await runAirlock(['capture', '--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env, cwd: dir });
    expect(r.code).toBe(0);
    const out = r.out.toString('utf8');
    const progress = out.split('\n').filter((l) => /^out \d+\+?\| progress/.test(l));
    expect(progress.length).toBeLessThan(20);
    expect(out).toMatch(/^airlock: stdout: \d+ lines redrawn in place \(a progress display\) not shown; the record has every line$/m);
    expect(out).toMatch(/^out \d+\| done$/m);
    const json = await runAirlock(['vault', 'show', 'latest', '--vault', join(dir, 'v'), '--json'], { env, cwd: dir });
    expect(json.out.toString('utf8')).toContain('progress 199%');
  });

  it('labels rows by stream and keeps --json to one envelope', async () => {
    const script = 'echo out1; echo err1 >&2; echo out2';
    const r = await runAirlock(['capture', '--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env, cwd: dir });
    const rows = r.out.toString('utf8').split('\n').filter((l) => /^(out|err) \d+\+?\| /.test(l));
    expect(rows.map((l) => l.replace(/^(out|err) \d+\| /, '$1 '))).toEqual(expect.arrayContaining(['out out1', 'err err1', 'out out2']));
    const j = await runAirlock(['capture', '--vault', join(dir, 'v'), '--json', '--', 'sh', '-c', script], { env, cwd: dir });
    const env1 = JSON.parse(j.out.toString('utf8'));
    expect(env1.stdout).toBe('out1\nout2\n');
  });

  it('never writes a control byte, whatever the command prints', async () => {
    const script = `printf 'a\\033]52;c;SGVsbG8=\\007b\\033[2Jc\\r\\n\\302\\233x\\342\\200\\256y\\n'; printf 'tail\\033[31m'`;
    const r = await runAirlock(['capture', '--vault', join(dir, 'v'), '--', 'sh', '-c', script], { env, cwd: dir });
    const out = r.out.toString('utf8');
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(out.split('\n').filter((l) => !l.startsWith('airlock:')).join('\n')).not.toContain('SGVsbG8');
  });
});
