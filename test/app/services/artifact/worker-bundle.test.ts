import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// Every index build, segment and text-search range starts this bundle in a fresh worker thread, so
// what it loads is paid on the build's critical path: the schema library (zod, pulled in by one
// constant of the bridge contract) was ~600 KB of a 966 KB bundle and ~50 ms of each start.
describe('index worker bundle', () => {
  it('does not pull in the bridge schemas or any runtime dependency', async () => {
    const out = await build({
      entryPoints: ['app/services/artifact/worker.ts'], bundle: true, platform: 'node', format: 'cjs', write: false, metafile: true, logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.filter((p) => p.includes('node_modules/'))).toEqual([]);
    expect(inputs).not.toContain('shared/bridge/contract.ts');
    expect(out.outputFiles[0].contents.length).toBeLessThan(400_000);
  });
});
