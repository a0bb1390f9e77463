import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
// AIRLOCK_E2E_BIN points the test at another bundle (e.g. one built before the command is registered).
const DIST = process.env.AIRLOCK_E2E_BIN ? resolve(process.env.AIRLOCK_E2E_BIN) : join(ROOT, 'dist', 'airlock.mjs');

/** Why the end-to-end test cannot run, or null: it needs a build that includes `capture`. */
function unavailable(): string | null {
  if (!existsSync(DIST)) return `${DIST} does not exist; run \`npm run build\` first`;
  const probe = spawnSync(process.execPath, [DIST, 'capture', '--help'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.status !== 0 || !probe.stdout.includes('airlock capture')) {
    return `${DIST} has no capture command (built ${statSync(DIST).mtime.toISOString()}); register captureCommand and run \`npm run build\``;
  }
  return null;
}

const reason = unavailable();
if (reason) console.warn(`capture end-to-end test skipped: ${reason}`);

describe.skipIf(reason !== null)(`built CLI: airlock capture${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('prints exactly one JSON envelope on stdout and mirrors the exit status', () => {
    const base = mkdtempSync(join(tmpdir(), 'airlock-capture-e2e-'));
    try {
      const vault = join(base, 'vault');
      const script = 'p=CL; printf "hi \\033]52;c;${p}IPPED-e2e\\007there\\n"; sleep 0.2; printf "\\033[31mwarn\\033[0m\\n" >&2; exit 4';
      const r = spawnSync(process.execPath, [DIST, 'capture', '--vault', vault, '--json', '--', 'sh', '-c', script], {
        cwd: base,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(4);
      // One document: JSON.parse rejects anything before or after it.
      const env = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(env).toMatchObject({
        command: expect.stringContaining('sh -c'),
        exit_code: 4,
        stdout: 'hi there\n',
        stderr: 'warn\n',
        truncated: false,
        sanitizer: { truncated: false, stdout: { classes: { osc: { count: 1 } } }, stderr: { classes: { csi: { count: 2 } } } },
        raw_artifacts: { stdout: expect.stringMatching(/^restricted:sha256:[0-9a-f]{64}$/), stderr: expect.stringMatching(/^restricted:sha256:[0-9a-f]{64}$/) },
      });
      expect(r.stdout).not.toContain('CLIPPED-e2e');
      expect(r.stdout).not.toContain('\x1b');
      expect(existsSync(join(vault, 'records', `${env.record as string}.json`))).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('stops an endless producer at --max-bytes', () => {
    const base = mkdtempSync(join(tmpdir(), 'airlock-capture-e2e-'));
    try {
      const t = Date.now();
      const r = spawnSync(process.execPath, [DIST, 'capture', '--vault', join(base, 'v'), '--json', '--max-bytes', '1M', '--', 'yes'], {
        cwd: base,
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(Date.now() - t).toBeLessThan(10_000);
      expect(r.status).toBe(125); // Airlock's own stop at --max-bytes, not the command's result
      expect(JSON.parse(r.stdout)).toMatchObject({ truncated: true, signal: 'SIGTERM', bytes: { stdout: 1024 * 1024 } });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
