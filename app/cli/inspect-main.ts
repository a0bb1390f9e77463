import { inspectCommand } from './commands/inspect';
import { processIo } from './process-io';
import { runCommand } from './run-command';

// `airlock inspect` on its own, bundled into one file (dist/inspect-main.mjs), as `sanitize` is
// (see sanitize-main.ts): the split CLI's shared chunks, loaded one module at a time, cost a
// start-up that a dump compared with `sanitize` pays on every run. Same command, same error handling.
process.exitCode = await runCommand(inspectCommand, process.argv.slice(3), processIo());
