import { sanitizeCommand } from './commands/sanitize';
import { processIo } from './process-io';
import { runCommand } from './run-command';

// `airlock sanitize` on its own, bundled into one file (dist/sanitize-main.mjs): in a pipeline its
// start-up is part of every run, and loading the split CLI's shared chunks one module at a time
// cost about a third of it. Same command, same error handling as through the full CLI.
process.exitCode = await runCommand(sanitizeCommand, process.argv.slice(3), processIo());
