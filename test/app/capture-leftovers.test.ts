// A command that leaves processes behind in its group (with its output already closed) must not
// leave them running unsupervised after the capture reports it finished.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureCommand } from '../../app/cli/commands/capture';
import { runCommand } from '../helpers/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-leftovers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Live (non-zombie) processes whose command line holds `marker`. */
function running(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(marker) && !line.trimStart().startsWith('Z') && !line.includes('ps -eo'));
}

describe.skipIf(process.platform === 'win32')('capture and processes left running', () => {
  it('stops background processes of the command group once the command has exited', async () => {
    const marker = `${31_000 + Math.floor(Math.random() * 900)}`;
    const script = `sleep ${marker} >/dev/null 2>&1 & echo started`;
    // Unsandboxed: under bwrap the kernel ends them with the sandbox, unreported (sandbox.test.ts).
    const r = await runCommand(captureCommand, ['--vault', join(dir, 'v'), '--json', '--sandbox', 'none', '--', 'sh', '-c', script], { env: { PATH: process.env.PATH }, cwd: dir });
    expect(r.code).toBe(0);
    const envelope = JSON.parse(r.out);
    expect(envelope.exit_code).toBe(0);
    expect(envelope.stdout).toBe('started\n');
    expect(envelope.termination).toEqual({ reason: 'left-running', signals: ['SIGTERM'] });
    expect(running(`sleep ${marker}`)).toEqual([]);
  });

  it('reports nothing for a command that leaves nothing behind', async () => {
    const r = await runCommand(captureCommand, ['--vault', join(dir, 'v'), '--json', '--', 'sh', '-c', 'echo done'], { env: { PATH: process.env.PATH }, cwd: dir });
    expect(JSON.parse(r.out).termination).toBeNull();
  });
});
