import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../app/audit';

// Child processes cannot import TypeScript, so the audit module is bundled to plain ESM first.
let dir: string;
let worker: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-audit-mp-'));
  await build({
    entryPoints: [resolve(__dirname, '../../app/audit/index.ts')],
    outfile: join(dir, 'audit.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  worker = join(dir, 'worker.mjs');
  await writeFile(
    worker,
    `import { AuditLog } from './audit.mjs';
const [logPath, who, count] = process.argv.slice(2);
const log = new AuditLog(logPath, { actor: { user: who, host: 'test' } });
for (let i = 0; i < Number(count); i++) await log.append('capture.stored', { worker: who, i });
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => ok({ code, stderr }));
  });
}

describe('audit log appends from several processes', () => {
  it('N processes × 50 appends produce one intact chain of N×50 entries', async () => {
    const N = 4;
    const PER = 50;
    const logPath = join(dir, 'audit.jsonl');
    const results = await Promise.all(Array.from({ length: N }, (_, w) => run([logPath, `w${w}`, String(PER)])));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    const log = new AuditLog(logPath);
    expect(await log.verify()).toMatchObject({ ok: true, entries: N * PER });
    // every worker's entries are all there, each worker's in its own order
    const entries = (await readFile(logPath, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { worker: string; i: number });
    for (let w = 0; w < N; w++) {
      expect(entries.filter((e) => e.worker === `w${w}`).map((e) => e.i)).toEqual(Array.from({ length: PER }, (_, i) => i));
    }
    expect((await readdir(dir)).filter((f) => f.startsWith('audit.lock'))).toEqual([]);
  });
});
