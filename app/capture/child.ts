import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import type { Duplex, Readable } from 'node:stream';
import { groupAlive, signalGroup } from './process-group';

/** How the child ended: exactly one of `code` and `signal` is non-null. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The command could not be started (no such file, not executable, ...): no child ran. */
export class SpawnError extends Error {
  override readonly name = 'SpawnError';
  constructor(
    /** The errno code, e.g. ENOENT or EACCES. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where and with what environment the child runs. */
export interface ChildSpawnOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /**
   * stdio entries from fd 3 on: descriptors the child gets at that number (the sandbox covers
   * inherited ones with /dev/null and passes the working directory), or 'pipe' for a channel to
   * it (bwrap's --info-fd and --block-fd).
   */
  readonly extraStdio?: readonly (number | 'ignore' | 'pipe')[];
}

/** A started child whose output arrives on two pipes. */
export interface RunningChild {
  readonly pid: number;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The 'pipe' entries of extraStdio, by their index there (others are null). */
  readonly extra: readonly (Duplex | null)[];
  /** Resolves once the child (the group leader) has exited. */
  readonly exited: Promise<ChildExit>;
  /** Signals Airlock sent to the child's process group, in order. */
  readonly signalsSent: readonly NodeJS.Signals[];
  /**
   * SIGTERM to the process group, then SIGKILL after `graceMs` if any member still runs.
   * Idempotent; resolves when the group is gone or SIGKILL was sent.
   */
  terminate(graceMs: number): Promise<void>;
}

const POLL_MS = 50;

/**
 * Starts `argv` over pipes, never a PTY: stdin is /dev/null (a command cannot stall waiting on a
 * terminal), stdout and stderr are pipes. The child leads a new session and process group
 * (`detached`), which gives two properties: it has no controlling terminal, so it cannot open
 * /dev/tty to prompt or to write escape sequences to the terminal; and Airlock can signal the
 * whole group. It still runs as the same user: without the sandbox (sandbox.ts) it can reach
 * Airlock's own descriptors through /proc/PPID/fd and read the vault. Resolves once the process runs; rejects with {@link SpawnError} when it cannot
 * start (then nothing ran).
 */
export function spawnChild(argv: readonly string[], options: ChildSpawnOptions): Promise<RunningChild> {
  const [file, ...args] = argv;
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(options.extraStdio ?? [])],
    detached: process.platform !== 'win32',
    shell: false,
    windowsHide: true,
  });
  // 'exit' is attached before anything is awaited, so a child that dies at once is not missed.
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise<RunningChild>((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(new SpawnError(err.code ?? 'EUNKNOWN', err.message));
    });
    child.once('spawn', () => {
      // After spawn, 'error' only reports failed kill() calls, which we handle ourselves.
      child.removeAllListeners('error');
      child.on('error', () => undefined);
      const pid = child.pid!;
      const sent: NodeJS.Signals[] = [];
      let done = false;
      void exited.then(() => (done = true));
      const send = (sig: NodeJS.Signals): boolean => {
        if (process.platform === 'win32') return !done && child.kill(sig);
        return signalGroup(pid, sig);
      };
      let termination: Promise<void> | null = null;
      resolve({
        pid,
        stdout: child.stdout!,
        stderr: child.stderr!,
        extra: (options.extraStdio ?? []).map((kind, i) => {
          if (kind !== 'pipe') return null;
          const pipe = child.stdio[3 + i] as unknown as Duplex;
          pipe.on('error', () => undefined); // the sandbox closing its end is not Airlock's failure
          return pipe;
        }),
        exited,
        signalsSent: sent,
        terminate(graceMs) {
          termination ??= (async () => {
            if (!send('SIGTERM')) return;
            sent.push('SIGTERM');
            const deadline = Date.now() + graceMs;
            while (Date.now() < deadline) {
              await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
              const alive = process.platform === 'win32' ? !done : await groupAlive(pid);
              if (!alive) return;
            }
            if (send('SIGKILL')) sent.push('SIGKILL');
          })();
          return termination;
        },
      });
    });
  });
}
