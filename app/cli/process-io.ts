import type { CliIo } from './command';

// A reader that goes away (`airlock inspect big.bin | head`) is not an error worth a stack trace.
const quietOnEpipe = (err: NodeJS.ErrnoException): void => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
};

/**
 * The process boundary: the {@link CliIo} of this process. The streams are getters: creating
 * process.stdin turns a pipe on fd 0 non-blocking, which would make the fast synchronous reads of
 * `sanitize` fail with EAGAIN, and creating stdout and stderr costs start-up time a command that
 * writes through the descriptors never needs. So each is made only when a command touches it.
 */
export function processIo(): CliIo {
  process.on('uncaughtException', quietOnEpipe);
  let stdoutSeen = false;
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      const stdout = process.stdout;
      if (!stdoutSeen) {
        stdoutSeen = true;
        stdout.on('error', quietOnEpipe);
      }
      return stdout;
    },
    get stderr() {
      return process.stderr;
    },
    env: process.env,
    cwd: process.cwd(),
    stdinFd: 0,
    stdoutFd: 1,
  };
}
