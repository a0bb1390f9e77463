import { runCli } from './run';

// A reader that goes away (`airlock inspect big.bin | head`) is not an error worth a stack trace.
const quietOnEpipe = (err: NodeJS.ErrnoException): void => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
};
process.stdout.on('error', quietOnEpipe);
process.on('uncaughtException', quietOnEpipe);

// The process boundary: everything below takes a CliIo so tests can drive it in-process.
// stdin is a getter: creating process.stdin turns a pipe on fd 0 non-blocking, which would make
// the fast synchronous reads of `sanitize` fail with EAGAIN. Only touch it when a command needs it.
process.exitCode = await runCli(process.argv.slice(2), {
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  stdinFd: 0,
  stdoutFd: 1,
});
