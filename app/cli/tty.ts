import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { isatty, WriteStream } from 'node:tty';

/**
 * The controlling terminal, opened apart from stdin/stdout: a reviewer's confirmation is read
 * here, so whatever feeds the command's stdin (an agent, a pipe, a heredoc) cannot answer it.
 */
export interface Tty {
  /** Writes Airlock's own (terminal-safe) text to the terminal. */
  write(text: string): void;
  /** One line typed at the terminal (without its newline), or null at end of input. */
  readLine(): Promise<string | null>;
  close(): void;
  /** The terminal's width in columns, when it reports one. */
  readonly columns?: number;
}

/** Longest answer read from the terminal; a confirmation is a few characters. */
const MAX_LINE = 4096;

/**
 * Opens `/dev/tty` for a confirmation, or resolves to null when the process has no controlling
 * terminal (a sandboxed agent, `setsid`, a cron job, a CI runner: open fails with ENXIO) or the
 * device is not a terminal. Reads are synchronous and stop at the newline, so no read is left
 * pending on the terminal after the answer.
 */
export async function openTty(): Promise<Tty | null> {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return null;
  }
  if (!isatty(fd)) {
    closeSync(fd);
    return null;
  }
  return {
    columns: columnsOf(),
    write: (text) => void writeSync(fd, text),
    readLine: async () => {
      const bytes: number[] = [];
      const one = Buffer.alloc(1);
      for (;;) {
        const n = readSync(fd, one, 0, 1, null);
        if (n === 0) return bytes.length > 0 ? Buffer.from(bytes).toString('utf8') : null;
        if (one[0] === 0x0a) return Buffer.from(bytes).toString('utf8').replace(/\r$/, '');
        if (bytes.length < MAX_LINE) bytes.push(one[0]);
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * The width of the controlling terminal, read on a descriptor of its own (a tty.WriteStream owns
 * and closes the descriptor it wraps), or undefined.
 */
function columnsOf(): number | undefined {
  try {
    const stream = new WriteStream(openSync('/dev/tty', 'r+'));
    const [columns] = stream.getWindowSize();
    stream.destroy();
    return columns > 0 ? columns : undefined;
  } catch {
    return undefined;
  }
}
