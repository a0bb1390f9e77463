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
});
