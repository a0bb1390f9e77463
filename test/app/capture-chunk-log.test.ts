// The chunk log must account for every byte of sanitized text, including text that only the end
// of a stream produces (a character cut at EOF becomes U+FFFD only then; overwrite mode emits its
// last line only then), or a merged view could not label it truthfully.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureCommand } from '../../app/cli/commands/capture';
import { runCommand } from '../helpers/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-chunk-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Row = [number, number, string, number, number, number, number, number];

async function capture(args: string[]): Promise<{ envelope: Record<string, unknown>; rows: Row[] }> {
  const vault = join(dir, 'v');
  const r = await runCommand(captureCommand, ['--vault', vault, '--json', ...args], { env: { PATH: process.env.PATH }, cwd: dir });
  const envelope = JSON.parse(r.out) as Record<string, unknown>;
  const record = JSON.parse(readFileSync(join(vault, 'records', `${envelope.record as string}.json`), 'utf8'));
  return { envelope, rows: record.chunks.rows as Row[] };
}

/** Text bytes of `stream` covered by log rows, checking the rows are contiguous. */
function covered(rows: Row[], stream: string): number {
  let next = 0;
  for (const [, , s, , , textOffset, textLength] of rows) {
    if (s !== stream) continue;
    expect(textOffset).toBe(next);
    next += textLength;
  }
  return next;
}

describe('chunk log coverage', () => {
  it('covers the U+FFFD of a character cut at the end of the stream', async () => {
    const { envelope, rows } = await capture(['--', 'printf', 'ok\\342\\240']);
    expect(envelope.stdout).toBe('ok\ufffd');
    expect(covered(rows, 'stdout')).toBe(Buffer.byteLength('ok\ufffd'));
  });

  it('covers the last emulated line in overwrite mode', async () => {
    const { envelope, rows } = await capture(['--cr', 'overwrite', '--', 'sh', '-c', 'printf "first\\n"; printf "tail-without-newline"']);
    expect(envelope.stdout).toBe('first\ntail-without-newline');
    expect(covered(rows, 'stdout')).toBe(Buffer.byteLength(envelope.stdout as string));
  });

  it('logs every chunk of two busy streams in arrival order, each contiguous in raw and text bytes', async () => {
    // Several MiB on both pipes at once: chunks are stored on arrival and sanitized behind, in
    // slices; the log must still list them in the order they came, with nothing skipped.
    const script = 'i=0; while [ $i -lt 40 ]; do head -c 100000 /dev/zero | tr "\\0" a; head -c 50000 /dev/zero | tr "\\0" b >&2; i=$((i+1)); done';
    const { envelope, rows } = await capture(['--max-text', '4M', '--', 'sh', '-c', script]);
    const bytes = envelope.bytes as { stdout: number; stderr: number };
    expect(bytes).toEqual({ stdout: 4_000_000, stderr: 2_000_000 });
    expect(rows.length).toBeGreaterThan(2);
    const raw: Record<string, number> = { stdout: 0, stderr: 0 };
    let seq = -1;
    for (const [s, sEnd, stream, offset, length] of rows) {
      expect(s).toBe(seq + 1);
      seq = sEnd;
      expect(offset).toBe(raw[stream]);
      raw[stream] += length;
    }
    expect(raw).toEqual(bytes);
    expect(covered(rows, 'stdout')).toBe(Buffer.byteLength(envelope.stdout as string));
    expect(covered(rows, 'stderr')).toBe(Buffer.byteLength(envelope.stderr as string));
    expect(envelope.stdout).toBe('a'.repeat(4_000_000));
  });
});
