// scripts/electronegativity.mjs (part of npm run lint): high/medium findings fail unless justified
// at the code; app/ itself passes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../..');

describe('electronegativity gate', () => {
  it('fails on an unjustified finding, accepts a justified one', () => {
    const r = spawnSync(process.execPath, ['scripts/electronegativity.mjs', 'test/app/main/fixtures/eneg'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/insecure\.js:11:\d+ CONTEXT_ISOLATION_JS_CHECK/);
    expect(r.stderr).not.toMatch(/insecure\.js:9:/);
  }, 120_000);
});
