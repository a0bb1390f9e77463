import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapUnavailable } from '../helpers/sandbox';

const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'sandboxed-agent.sh');
const AGENT = join(ROOT, 'test', 'fixtures', 'mcp', 'agent.mjs');
const skip = !existsSync(join(ROOT, 'dist', 'airlock.mjs')) ? 'dist/airlock.mjs is missing; run `npm run build`' : await bwrapUnavailable();
if (skip) console.warn(`sandboxed-agent recipe test skipped: ${skip}`);

const base = mkdtempSync(join(tmpdir(), 'airlock-agent-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

// The README's recipe, run as written: the agent (a script using the SDK client) in bubblewrap,
// `airlock mcp` outside it, the two joined by the relay.
describe.skipIf(skip !== null)(`scripts/sandboxed-agent.sh${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('lets the agent capture through Airlock while neither it nor its commands can read the vault', () => {
    const vault = join(base, 'vault');
    // The agent here is a script of this checkout: shown to it read-only with --ro.
    const r = spawnSync(SCRIPT, ['--vault', vault, '--ro', ROOT, '--', process.execPath, AGENT, vault], { cwd: base, encoding: 'utf8', timeout: 60_000 });
    // The agent's own look at the vault: a covered directory it may not even list.
    expect(r.stderr).toMatch(/^(ls: cannot open directory '[^']*': Permission denied\n)?$/);
    expect(r.status).toBe(0);
    const seen = JSON.parse(r.stdout) as { ownRead: string; first: { stdout: string; sandbox: { used: string } }; second: { stdout: string } };
    // The agent's own look at the vault: an empty directory.
    expect(seen.ownRead).toBe('0\n');
    expect(seen.first.stdout).toBe('agent ran\n');
    expect(String(seen.first.sandbox).split(',')[0]).toBe('bwrap');
    // A command it runs through Airlock cannot read it either.
    expect(seen.second.stdout).toBe('cat=1\n');
    // Yet the vault outside holds the raw bytes of both captures.
    expect(readdirSync(join(vault, 'raw', 'sha256')).length).toBeGreaterThan(0);
    expect(readdirSync(join(vault, 'records'))).toHaveLength(2);
  });
});
