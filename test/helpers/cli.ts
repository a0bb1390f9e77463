import { PassThrough } from 'node:stream';
import type { CliIo } from '../../app/cli/command';
import { runCli } from '../../app/cli/run';

/** What one in-process `airlock` run produced. */
export interface CliResult {
  code: number;
  out: Buffer;
  err: string;
}

/**
 * Runs `airlock ARGV` in-process through the real dispatcher (exit codes, error printing), with
 * `stdin` fed from bytes and stdout captured as bytes.
 */
export async function runAirlock(argv: string[], options: { stdin?: Uint8Array | string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (d: Buffer) => out.push(d));
  stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  stdin.end(options.stdin ?? '');
  const io: CliIo = { stdin, stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? process.cwd() };
  const code = await runCli(argv, io);
  await new Promise((r) => setImmediate(r));
  return { code, out: Buffer.concat(out), err };
}
