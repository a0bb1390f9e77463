// The built CLI as a real process: stdin from a pipe whose writer pauses (the synchronous fast
// path must wait or fall back, never fail with EAGAIN), and a reader that goes away early.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(__dirname, '../../dist/airlock.mjs');
const built = existsSync(CLI);
const env = { PATH: process.env.PATH };

describe.skipIf(!built)('airlock as a process (dist/airlock.mjs; `npm test` builds it first)', () => {
  it('reads a slow pipe to the end, in order, without EAGAIN', async () => {
    const child = spawn(process.execPath, [CLI, 'sanitize'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    for (let i = 0; i < 5; i++) {
      child.stdin.write(`line ${i} \x1b[3${i}mcolour\x1b[0m\x1b]0;t${i}`);
      await new Promise((r) => setTimeout(r, 60));
      child.stdin.write('\x07\n');
    }
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(err).toBe('');
    expect(Buffer.concat(out).toString()).toBe([0, 1, 2, 3, 4].map((i) => `line ${i} colour\n`).join(''));
  });

  it('exits quietly when its reader goes away (EPIPE)', async () => {
    const child = spawn(process.execPath, [CLI, 'inspect', join(__dirname, '../../assets/samples/hostile-transcript.bin')], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(err).not.toMatch(/EPIPE|Error/);
  });
});
