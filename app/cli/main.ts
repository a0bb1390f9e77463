import { runCli } from './run';

// The process boundary: everything below takes a CliIo so tests can drive it in-process.
process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  stdinFd: 0,
  stdoutFd: 1,
});
