// Baseline: a node process that copies stdin to stdout untouched. Its time is the I/O floor
// (process startup + reading + writing) that no sanitizer running under node can beat.
import { pipeline } from 'node:stream/promises';

await pipeline(process.stdin, process.stdout);
