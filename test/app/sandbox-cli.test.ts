import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapUnavailable } from '../helpers/sandbox';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'app', 'bin', 'airlock.js');
const built = existsSync(join(ROOT, 'dist', 'airlock.mjs'));
const skip = !built ? 'dist/airlock.mjs is missing; run `npm run build`' : await bwrapUnavailable();
if (skip) console.warn(`capture --sandbox CLI tests skipped: ${skip}`);

const base = mkdtempSync(join(tmpdir(), 'airlock-sandbox-cli-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** fd 60 of airlock is a pipe without close-on-exec, as a shell's `60>file` or a harness would leave it. */
const LEAK_FD = 60;

function captureWithLeakedFd(sandbox: string, script: string): Promise<{ envelope: Record<string, unknown>; leaked: string; status: number | null }> {
  const stdio: ('pipe' | 'ignore')[] = ['ignore', 'pipe', 'pipe'];
  for (let fd = 3; fd <= LEAK_FD; fd++) stdio.push(fd === LEAK_FD ? 'pipe' : 'ignore');
  const child = spawn(process.execPath, [BIN, 'capture', '--vault', join(base, 'vault'), '--json', '--sandbox', sandbox, '--', 'bash', '-c', script], { cwd: base, stdio });
  let out = '';
  let leaked = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  (child.stdio as unknown as NodeJS.ReadableStream[])[LEAK_FD].on('data', (d: Buffer) => (leaked += d.toString('utf8')));
  return new Promise((done) => child.on('close', (status) => done({ envelope: JSON.parse(out) as Record<string, unknown>, leaked, status })));
}

describe.skipIf(skip !== null)(`airlock capture --sandbox${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const script = `printf LEAKED >&${LEAK_FD}; echo rc=$?`;

  it('control: without the sandbox an inherited descriptor reaches the command', async () => {
    const r = await captureWithLeakedFd('none', script);
    expect(r.leaked).toBe('LEAKED');
    expect(r.envelope.sandbox).toMatchObject({ requested: 'none', used: 'none', reason: 'sandbox turned off (--sandbox none)', network: { used: 'host' } });
  });

  it('under bwrap the inherited descriptor is /dev/null and the write fails', async () => {
    const r = await captureWithLeakedFd('bwrap', script);
    expect(r.leaked).toBe('');
    expect(r.envelope.stdout).toBe('rc=1\n');
    expect(r.envelope.sandbox).toMatchObject({ requested: 'bwrap', used: 'bwrap' });
    expect(r.status).toBe(0);
  });

  it('auto picks bwrap where it works', async () => {
    const r = await captureWithLeakedFd('auto', 'true');
    expect(r.envelope.sandbox).toMatchObject({ requested: 'auto', used: 'bwrap' });
  });
});

describe('airlock capture --sandbox usage', () => {
  it('refuses an unknown mode before running anything', async () => {
    const { runAirlock } = await import('../helpers/cli');
    const r = await runAirlock(['capture', '--vault', join(base, 'v-usage'), '--sandbox', 'firejail', '--', 'sh', '-c', 'touch ran'], { cwd: base });
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe("airlock capture: --sandbox must be auto, bwrap, none, not 'firejail' (see 'airlock capture --help')");
    expect(existsSync(join(base, 'ran'))).toBe(false);
  });

  it('the readable rendering states the sandbox as an Airlock line', async () => {
    const { runAirlock } = await import('../helpers/cli');
    const r = await runAirlock(['capture', '--vault', join(base, 'v-usage'), '--sandbox', 'none', '--', 'true'], { cwd: base, env: { PATH: process.env.PATH } });
    expect(r.out.toString('utf8').split('\n')).toContain('airlock: sandbox none: sandbox turned off (--sandbox none)');
  });

  it('--sandbox bwrap without bubblewrap is one line and runs nothing', async () => {
    const { runAirlock } = await import('../helpers/cli');
    const r = await runAirlock(['capture', '--vault', join(base, 'v-usage'), '--sandbox', 'bwrap', '--', '/bin/sh', '-c', 'touch ran'], { cwd: base, env: { PATH: '/nonexistent' } });
    expect(r.code).toBe(1);
    expect(r.err).toBe('airlock capture: --sandbox bwrap: bwrap (bubblewrap) is not installed or not on PATH (nothing was run; --sandbox auto runs without bwrap, --network none without a network, and each says so)\n');
    expect(existsSync(join(base, 'ran'))).toBe(false);
  });
});
