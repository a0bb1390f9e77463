import { fstatSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { wrapLine } from '../terminal/fit';
import type { Tty } from './tty';

/** The process surroundings a command runs in; tests pass fakes. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Descriptors behind stdin/stdout, when they are the process's own: enables fast synchronous I/O. */
  readonly stdinFd?: number;
  readonly stdoutFd?: number;
  /**
   * Opens the controlling terminal for a human's confirmation (`request approve`), or null when
   * there is none; default: /dev/tty (tests pass a fake).
   */
  readonly openTty?: () => Promise<Tty | null>;
}

/** One `airlock` subcommand. `run` resolves to the process exit code. */
export interface Command {
  readonly name: string;
  readonly usage: string;
  /**
   * The leading arguments that are this command's own options, when that is not simply everything
   * before `--` (capture: options end at the command to run, whose own `--help` must reach it).
   */
  ownOptions?(args: readonly string[]): readonly string[];
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure that is not the caller's phrasing (unreadable file, unwritable vault): exit code 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

/**
 * Whether stdout's descriptor is a pipe or socket: never a terminal. Told from the descriptor, not
 * from process.stdout: creating that stream turns a pipe non-blocking, and a synchronous write to
 * it then fails with EAGAIN whenever the reader lags (StdoutWriter falls back to the stream).
 */
function stdoutIsPipe(io: CliIo): boolean {
  if (io.stdoutFd === undefined) return false;
  try {
    const stat = fstatSync(io.stdoutFd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Whether stdout is a terminal (a pipe is answered without creating process.stdout). */
export function stdoutIsTerminal(io: CliIo): boolean {
  return !stdoutIsPipe(io) && Boolean((io.stdout as { isTTY?: boolean }).isTTY);
}

/**
 * Width of the terminal behind stdout (`COLUMNS` when set to a number, as for other tools, else
 * the terminal's own), or undefined when stdout is not a terminal: a file or a pipe gets lines
 * whole, whatever COLUMNS says.
 */
export function terminalColumns(io: CliIo): number | undefined {
  if (!stdoutIsTerminal(io)) return undefined;
  const env = /^[1-9]\d{0,4}$/.test(io.env?.COLUMNS ?? '') ? Number(io.env.COLUMNS) : undefined;
  const columns = env ?? (io.stdout as { columns?: unknown }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : undefined;
}

/**
 * Writes lines of Airlock's own (terminal-safe, no LF) to `stream`. When the stream is a terminal
 * each line is cut to its width, further rows beginning with `continuation`, so the terminal's
 * own wrapping never starts a row with a path or value that could pass for another line.
 */
export function writeOwnLines(stream: Writable, lines: string | readonly string[], continuation: string): void {
  const raw = (stream as { columns?: unknown }).columns;
  const columns = typeof raw === 'number' && raw > 0 ? raw : Infinity;
  const rows = (typeof lines === 'string' ? [lines] : lines).flatMap((line) => wrapLine(line, columns, continuation));
  if (rows.length > 0) stream.write(`${rows.join('\n')}\n`);
}
