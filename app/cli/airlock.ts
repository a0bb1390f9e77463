// The `airlock` executable (dist/airlock.mjs, not bundled): `sanitize`, which runs in pipelines
// where start-up counts, and `inspect` go to their one-file builds; everything else to the full
// CLI, whose commands load on demand. All are built beside this file by scripts/build.mjs.
const command = process.argv[2];
const entry = command === 'sanitize' ? './sanitize-main.mjs' : command === 'inspect' ? './inspect-main.mjs' : './cli.mjs';
await import(entry);
export {};
