// The `airlock` executable (dist/airlock.mjs, not bundled): `sanitize`, which runs in pipelines
// where start-up counts, goes to its one-file build; everything else to the full CLI, whose
// commands load on demand. Both are built beside this file by scripts/build.mjs.
const entry = process.argv[2] === 'sanitize' ? './sanitize-main.mjs' : './cli.mjs';
await import(entry);
export {};
