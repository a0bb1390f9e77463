// Bundles the CLI into one ESM file so `airlock` starts fast (no TypeScript at run time).
import { build } from 'esbuild';

await build({
  entryPoints: { airlock: 'app/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  // One chunk per command (they are imported on demand), shared code in common chunks.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  outExtension: { '.js': '.mjs' },
});
