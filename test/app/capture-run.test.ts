import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCapture, SpawnError, type CaptureOptions } from '../../app/capture';
import type { RawCommit, RawWriter } from '../../app/vault';

/** An in-memory RawWriter; `failAfter` bytes make write() reject, as a full disk would. */
class MemoryWriter implements RawWriter {
  readonly chunks: Buffer[] = [];
  state: 'open' | 'committed' | 'aborted' = 'open';
  private bytes = 0;
  constructor(private readonly failAfter = Infinity) {}
  get size(): number {
    return this.bytes;
  }
  write(chunk: Uint8Array): void | Promise<void> {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    if (this.bytes > this.failAfter) return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  }
  async commit(): Promise<RawCommit> {
    this.state = 'committed';
    const sha256 = createHash('sha256').update(Buffer.concat(this.chunks)).digest('hex');
    return { sha256, size: this.bytes, ref: `restricted:sha256:${sha256}` };
  }
  async abort(): Promise<void> {
    this.state = 'aborted';
  }
}

function options(argv: string[], writers: MemoryWriter[], extra: Partial<CaptureOptions> = {}): CaptureOptions {
  let i = 0;
  return {
    argv,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    maxBytes: 64 * 1024 * 1024,
    maxText: 1024 * 1024,
    cr: 'newline',
    limits: {},
    createRawWriter: () => {
      const w = writers[i++];
      if (!w) throw new Error('more writers than streams');
      return w;
    },
    ...extra,
  };
}

describe('runCapture', () => {
  it('streams both pipes into their own writers and sanitizers', async () => {
    const writers = [new MemoryWriter(), new MemoryWriter()];
    const o = await runCapture(options(['sh', '-c', 'printf "a\\033[1mb\\n"; sleep 0.2; printf "c\\n" >&2'], writers));
    expect(writers.map((w) => w.state)).toEqual(['committed', 'committed']);
    expect(Buffer.concat(writers[0].chunks).toString('latin1')).toBe('a\x1b[1mb\n');
    expect(o.streams.stdout.text.text).toBe('ab\n');
    expect(o.streams.stderr.text.text).toBe('c\n');
    expect(o).toMatchObject({ exit: { code: 0, signal: null }, termination: null, truncated: false, totalBytes: 9 });
  });

  it('rejects with SpawnError and creates no writer when the command does not exist', async () => {
    const writers: MemoryWriter[] = [];
    await expect(runCapture(options(['/nonexistent/airlock-test-cmd'], writers))).rejects.toBeInstanceOf(SpawnError);
    await expect(runCapture(options(['/nonexistent/airlock-test-cmd'], writers))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('when the vault stops taking bytes: stops the child, aborts both writers, rejects', async () => {
    const writers = [new MemoryWriter(256 * 1024), new MemoryWriter()];
    const t = Date.now();
    await expect(runCapture(options(['yes'], writers))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(Date.now() - t).toBeLessThan(5000);
    expect(writers.map((w) => w.state)).toEqual(['aborted', 'aborted']);
  });

  it('when a writer cannot be created: stops the child and aborts the writer already made', async () => {
    const writers = [new MemoryWriter()]; // the second createRawWriter() throws
    await expect(runCapture(options(['sleep', '30'], writers, { killGraceMs: 200 }))).rejects.toThrow('more writers than streams');
    expect(writers[0].state).toBe('aborted');
  });

  it('an abort signal (SIGINT to airlock) stops the child and keeps what it wrote', async () => {
    const writers = [new MemoryWriter(), new MemoryWriter()];
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const o = await runCapture(options(['sh', '-c', 'echo before; exec sleep 30'], writers, { signal: ac.signal }));
    expect(o.termination).toEqual({ reason: 'interrupted', signals: ['SIGTERM'] });
    expect(o.exit).toEqual({ code: null, signal: 'SIGTERM' });
    expect(o.streams.stdout.text.text).toBe('before\n');
    expect(writers.map((w) => w.state)).toEqual(['committed', 'committed']);
  });

  it('escalates to SIGKILL after the grace period for a child that ignores SIGTERM', async () => {
    const writers = [new MemoryWriter(), new MemoryWriter()];
    const t = Date.now();
    const o = await runCapture(
      options(['sh', '-c', 'trap "" TERM; echo ready; while :; do sleep 0.05; done'], writers, { timeoutMs: 300, killGraceMs: 300 }),
    );
    expect(Date.now() - t).toBeLessThan(5000);
    expect(o.termination).toEqual({ reason: 'timeout', signals: ['SIGTERM', 'SIGKILL'] });
    expect(o.exit.signal).toBe('SIGKILL');
    expect(o.streams.stdout.text.text).toBe('ready\n');
  });
});

describe('runCapture: the retention lock hook', () => {
  /** A writer whose commit fails, as a full disk at fsync would. */
  class FailingCommitWriter extends MemoryWriter {
    override async commit(): Promise<RawCommit> {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }
  }

  it('takes the lock before any raw commit and hands its release to the caller', async () => {
    const writers = [new MemoryWriter(), new MemoryWriter()];
    const events: string[] = [];
    const release = async (): Promise<void> => {
      events.push('release');
    };
    const o = await runCapture(
      options(['sh', '-c', 'echo out'], writers, {
        holdRetentionLock: async () => {
          events.push(`hold:${writers.map((w) => w.state).join(',')}`);
          return release;
        },
      }),
    );
    expect(events).toEqual(['hold:open,open']); // held before the commits, not released yet
    expect(writers.map((w) => w.state)).toEqual(['committed', 'committed']);
    expect(o.releaseRetentionLock).toBe(release);
  });

  it('releases the lock itself when a commit fails', async () => {
    const writers = [new MemoryWriter(), new FailingCommitWriter()];
    let released = 0;
    await expect(
      runCapture(
        options(['true'], writers, {
          holdRetentionLock: async () => async () => {
            released++;
          },
        }),
      ),
    ).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(released).toBe(1);
    expect(writers[1].state).toBe('aborted');
  });

  it('aborts both writers when the lock cannot be taken', async () => {
    const writers = [new MemoryWriter(), new MemoryWriter()];
    await expect(
      runCapture(
        options(['true'], writers, {
          holdRetentionLock: () => Promise.reject(new Error('timed out waiting for lock')),
        }),
      ),
    ).rejects.toThrow('timed out waiting for lock');
    expect(writers.map((w) => w.state)).toEqual(['aborted', 'aborted']);
  });
});
