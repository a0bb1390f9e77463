import { PassThrough } from 'node:stream';
import { CliError, UsageError, type CliIo, type Command } from '../../app/cli/command';
import { runCli } from '../../app/cli/run';

/** How a test run's surroundings look; `columns` makes stdout a terminal of that width. */
export interface IoOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly stdin?: Uint8Array | string;
  readonly columns?: number;
}

/** An in-memory CliIo: stdin holds the given bytes; stdout and stderr are collected. */
function fakeIo(options: IoOptions): { io: CliIo; out: () => Buffer; err: () => string } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  // A terminal of that width: what `terminalColumns` and colour detection look at.
  if (options.columns !== undefined) Object.assign(stdout, { columns: options.columns, isTTY: true });
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (d: Buffer) => out.push(d));
  stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  stdin.end(options.stdin ?? '');
  const io: CliIo = { stdin, stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? process.cwd() };
  return { io, out: () => Buffer.concat(out), err: () => err };
}

/** Lets stream 'data' events for the last writes fire before results are read. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

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
export async function runAirlock(argv: string[], options: IoOptions = {}): Promise<CliResult> {
  const fake = fakeIo(options);
  const code = await runCli(argv, fake.io);
  await settle();
  return { code, out: fake.out(), err: fake.err() };
}

/** What one in-process run of a single command produced (stdout decoded as UTF-8). */
export interface CommandResult {
  code: number;
  out: string;
  err: string;
  /** Wall time of the run in milliseconds. */
  ms: number;
}

/**
 * Runs one command object in-process and maps its errors to exit codes the way run.ts does
 * (UsageError → 2, CliError → its code; the message goes to `err`); anything else is rethrown
 * so a test sees the real failure.
 */
export async function runCommand(command: Command, args: string[], options: IoOptions = {}): Promise<CommandResult> {
  const fake = fakeIo(options);
  const started = performance.now();
  let code: number;
  let message = '';
  try {
    code = await command.run(args, fake.io);
  } catch (e) {
    if (e instanceof UsageError) code = 2;
    else if (e instanceof CliError) code = e.exitCode;
    else throw e;
    message = `${(e as Error).message}\n`;
  }
  const ms = performance.now() - started;
  await settle();
  return { code, out: fake.out().toString('utf8'), err: fake.err() + message, ms };
}
