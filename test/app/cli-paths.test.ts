// Issue #9, bug classes 1 and 2: output paths are written through (devices, FIFOs, link targets)
// or refused before any work, never renamed over; path errors end promptly with one clear line.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

const CLI = join(__dirname, '../../dist/airlock.mjs');
const isRoot = process.getuid?.() === 0;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-paths-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const INPUT = 'ok \x1b]0;title\x07\n';

describe('output paths (bug class 1)', () => {
  it.skipIf(!isRoot)('writes a report through a character device instead of replacing it', async () => {
    // A private copy of /dev/null (same major/minor): the real one is shared with the machine.
    const dev = join(dir, 'null');
    expect(spawnSync('mknod', [dev, 'c', '1', '3']).status).toBe(0);
    const r = await runAirlock(['sanitize', '--report', dev], { stdin: INPUT, cwd: dir });
    expect(r.code).toBe(0);
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it('writes a report through a FIFO to its reader', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const read = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream(fifo, 'utf8').on('data', (d) => (text += d)).on('end', () => resolve(text)).on('error', reject);
    });
    const r = await runAirlock(['sanitize', '--report', fifo], { stdin: INPUT, cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(await read).classes.osc.count).toBe(1);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('follows a symbolic link to its target and keeps the link', async () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.json');
    symlinkSync(target, link);
    const r = await runAirlock(['sanitize', '--report', link], { stdin: INPUT, cwd: dir });
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8')).classes.osc.count).toBe(1);
  });

  it('refuses a dangling link, a directory and a missing directory before reading any input', async () => {
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    for (const [path, why] of [
      ['dangling', /symbolic link to a missing file/],
      ['.', /is a directory/],
      ['no/such/dir/r.json', /directory .*no\/such\/dir does not exist/],
    ] as const) {
      const r = await runAirlock(['sanitize', '--report', path], { stdin: INPUT, cwd: dir });
      expect(r.code, path).toBe(1);
      expect(r.out.length, `${path}: no text before the error`).toBe(0);
      expect(r.err, path).toMatch(why);
      expect(r.err).not.toMatch(/\.tmp/);
      expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('resolves a relative --report against the command cwd, and --report - prints the report on stdout', async () => {
    const r = await runAirlock(['sanitize', '--report', 'r.json'], { stdin: INPUT, cwd: dir });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'r.json'))).toBe(true);
    const s = await runAirlock(['sanitize', '--report', '-'], { stdin: INPUT, cwd: dir });
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out.toString('utf8')).classes.osc.count).toBe(1);
  });

  it('reads FILE when one is given', async () => {
    writeFileSync(join(dir, 'in.bin'), INPUT);
    const r = await runAirlock(['sanitize', 'in.bin'], { cwd: dir });
    expect(r).toMatchObject({ code: 0 });
    expect(r.out.toString('utf8')).toBe('ok \n');
  });
});

describe.skipIf(!existsSync(CLI))('path errors end promptly (bug class 2)', () => {
  it.each([
    [['capture', '--vault', '/proc/airlock-test', '--', 'true']],
    [['capture', '--vault', '/proc/airlock-test/a/b', '--', 'true']],
    [['capture', '--vault', '/etc/passwd/vault', '--', 'true']],
    [['vault', 'list', '--vault', '/proc/airlock-test']],
    [['audit', 'verify', '--vault', '/proc/airlock-test']],
  ])('%j fails within seconds with one line', async (args) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code, `stderr: ${err}`).toBe(1);
    expect(err.trimEnd().split('\n')).toHaveLength(1);
    expect(err).toMatch(/vault/);
  });
});
