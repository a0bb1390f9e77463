// StdoutWriter on a descriptor that stops taking bytes (a non-blocking pipe that is full): the rest
// goes through the stream, and the caller's buffer is the caller's again as soon as the write
// resolves. Reusing it at once (as the dump does with its output region) must not change
// the bytes still queued on the stream: a view once let the next rows overwrite them. And a pipe
// is known not to be a terminal without creating process.stdout, which would turn it non-blocking.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../app/cli/command';
import { stdoutIsTerminal, terminalColumns } from '../../app/cli/command';
import { StdoutWriter } from '../../app/cli/stdio';

const cleanup: (() => void)[] = [];
afterEach(() => {
  while (cleanup.length > 0) cleanup.pop()?.();
});

/** A full-capacity FIFO's ends, both non-blocking: writes past its capacity fail with EAGAIN. */
function nonBlockingFifo(): { readFd: number; writeFd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-fifo-'));
  const path = join(dir, 'out');
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  cleanup.push(() => {
    closeSync(writeFd);
    closeSync(readFd);
    rmSync(dir, { recursive: true, force: true });
  });
  return { readFd, writeFd };
}

describe('StdoutWriter', () => {
  it('hands the stream a copy of what the descriptor did not take, so the caller may reuse its buffer at once', async () => {
    const { readFd, writeFd } = nonBlockingFifo();
    // The stream keeps each chunk it is given and takes it later, as a queued write does.
    const queued: Buffer[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        queued.push(chunk);
        setImmediate(done);
      },
    });
    const writer = new StdoutWriter({ stdoutFd: writeFd, stdout } as unknown as CliIo);
    // More than the pipe holds, then a short write (the rows after a flush boundary).
    for (const size of [(1 << 20) + 22, 22]) {
      const data = Buffer.alloc(size, 0x61);
      await writer.write(data);
      // Reused at once, as the dump's output region is.
      data.fill(0x62);
    }
    expect(writer.synchronous).toBe(false);
    // The pipe took some of the first write; the stream the rest, and all of the second.
    const inPipe = Buffer.alloc(1 << 20);
    const piped = readSync(readFd, inPipe, 0, inPipe.length, null);
    expect(piped).toBeGreaterThan(0);
    const rest = Buffer.concat(queued);
    expect(piped + rest.length).toBe((1 << 20) + 44);
    expect(rest.every((b) => b === 0x61)).toBe(true);
  });

  it('tells a pipe is no terminal from its descriptor, without creating the stream (which would turn the pipe non-blocking)', () => {
    const { writeFd } = nonBlockingFifo();
    const io = {
      stdoutFd: writeFd,
      get stdout(): never {
        throw new Error('process.stdout created');
      },
    } as unknown as CliIo;
    expect(stdoutIsTerminal(io)).toBe(false);
    expect(terminalColumns(io)).toBeUndefined();
    // Not a pipe (a file, a terminal, /dev/null): the stream says, as a terminal's width does.
    const fake = { stdoutFd: undefined, stdout: { isTTY: true, columns: 80 } } as unknown as CliIo;
    expect(stdoutIsTerminal(fake)).toBe(true);
    expect(terminalColumns(fake)).toBe(80);
  });
});
