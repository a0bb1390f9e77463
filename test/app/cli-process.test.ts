// The built CLI as a real process: stdin from a pipe whose writer pauses (the synchronous fast
// path must wait or fall back, never fail with EAGAIN), a reader that goes away early, and the
// file `inspect` loads on demand (its vault code) found and used as the sources are.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

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

  it('writes its dump whole and in order into a non-blocking pipe that is full when it starts', async () => {
    // A parent may hand over a non-blocking pipe that still holds unread bytes. Writes then meet
    // EAGAIN, and the output falls back to the stream, which waits for the pipe: the output is
    // still whole and in order. (A short rest queued on a stream while the dump writes on, the
    // corruption StdoutWriter's copy prevents, needs a reader racing the writer:
    // test/app/stdout-writer.test.ts.)
    const dir = mkdtempSync(join(tmpdir(), 'airlock-nbpipe-'));
    try {
      const input = join(dir, 'big.log');
      const line = 'step \x1b[32mok\x1b[0m \u0627\u0644\u062d build/output/file.txt\n';
      writeFileSync(input, line.repeat(Math.ceil((9 << 20) / Buffer.byteLength(line))));
      const childEnv = env;
      const expected = spawnSync(process.execPath, [CLI, 'inspect', input], { env: childEnv, maxBuffer: 1 << 30 });
      expect(expected.status).toBe(0);
      const fifo = join(dir, 'out');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writeFd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      const filler = Buffer.alloc(4096, 0x58);
      let filled = 0;
      for (;;) {
        try {
          filled += writeSync(writeFd, filler);
        } catch {
          break;
        }
      }
      const child = spawn(process.execPath, [CLI, 'inspect', input], { stdio: ['ignore', writeFd, 'pipe'], env: childEnv });
      closeSync(writeFd);
      let err = '';
      child.stderr?.on('data', (d: Buffer) => (err += d));
      const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
      // A late, slow reader: nothing read until the child has started writing into the full pipe,
      // then 64 KiB at a time with a pause between reads, until the writer is gone.
      await new Promise((r) => setTimeout(r, 600));
      const parts: Buffer[] = [];
      let done = false;
      void exit.then(() => (done = true));
      for (;;) {
        await new Promise((r) => setTimeout(r, 2));
        const chunk = Buffer.alloc(1 << 16);
        let n = -1;
        try {
          n = readSync(readFd, chunk, 0, chunk.length, null);
        } catch {
          // EAGAIN: nothing written yet.
        }
        if (n > 0) parts.push(chunk.subarray(0, n));
        // End of file: every writer is gone (and nothing was left to read).
        if (n === 0 && done) break;
      }
      closeSync(readFd);
      expect(await exit).toBe(0);
      expect(err).toBe('');
      const got = Buffer.concat(parts);
      expect(got.subarray(0, filled).every((b) => b === 0x58)).toBe(true);
      expect(got.subarray(filled).equals(expected.stdout)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('exits quietly when its reader goes away (EPIPE)', async () => {
    const child = spawn(process.execPath, [CLI, 'inspect', join(__dirname, '../../assets/samples/hostile-transcript.bin')], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(err).not.toMatch(/EPIPE|Error/);
  });

  it("loads inspect's vault code from its own file, and dumps and opens as the sources do", async () => {
    const dist = join(__dirname, '../../dist');
    // What only a restricted: reference needs stays out of the file every inspect compiles.
    const main = readFileSync(join(dist, 'inspect-main.mjs'), 'utf8');
    expect(main).not.toContain('AuditLog');
    expect(main).toContain('./inspect-restricted.mjs');
    const dir = mkdtempSync(join(tmpdir(), 'airlock-lazy-'));
    try {
      const built = (...argv: string[]) => spawnSync(process.execPath, [CLI, ...argv], { env, cwd: dir });
      const sample = join(__dirname, '../../assets/samples/hostile-transcript.bin');
      const dump = built('inspect', sample, '--color', 'always');
      expect(dump.status, dump.stderr.toString()).toBe(0);
      expect(dump.stdout.equals((await runAirlock(['inspect', sample, '--color', 'always'], { env, cwd: dir })).out)).toBe(true);
      const vault = join(dir, 'vault');
      const captured = built('capture', '--vault', vault, '--json', '--', 'sh', '-c', 'printf "x\\033]0;t\\007y"');
      expect(captured.status, captured.stderr.toString()).toBe(0);
      const ref = (JSON.parse(captured.stdout.toString()) as { raw_artifacts: { stdout: string } }).raw_artifacts.stdout;
      const opened = built('inspect', ref, '--vault', vault);
      expect(opened.status, opened.stderr.toString()).toBe(0);
      expect(opened.stdout.toString()).toContain('|x^[]0;t^Gy|');
      // Its failures are the command's one line and exit code, though its CliError is another class.
      const unknown = built('inspect', `restricted:sha256:${'0'.repeat(64)}`, '--vault', vault);
      expect(unknown.status).toBe(1);
      expect(unknown.stderr.toString()).toMatch(/^airlock inspect: raw artifact restricted:sha256:0{64} is not in vault .* \(pruned, or never stored there\)\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
