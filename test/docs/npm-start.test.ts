// The README promises that `npm start` on a machine without the Electron binary says so in one
// line: it names the preview and, without a display, how to run it. Here no binary can be found
// (ELECTRON_OVERRIDE_DIST_PATH names an empty place), none is downloaded
// (ELECTRON_SKIP_BINARY_DOWNLOAD) or the download fails (a mirror nothing listens on), and there is
// no display, so the script must stop at that line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

describe('npm start without the Electron binary', () => {
  it('says so in one line, names the preview and exits 1', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: resolve(ROOT, 'no-such-electron'), ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const run = spawnSync(process.execPath, [resolve(ROOT, 'scripts/start.mjs')], { env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^airlock: no Electron binary here \(ELECTRON_SKIP_BINARY_DOWNLOAD is set\) and no display for the preview; run `xvfb-run -a npm run preview`/);
  });

  it('tries the download once, then says in one line why it failed', () => {
    const cache = mkdtempSync(join(tmpdir(), 'airlock-electron-cache-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: resolve(ROOT, 'no-such-electron'),
        ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: cache };
      delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
      delete env.DISPLAY;
      delete env.WAYLAND_DISPLAY;
      const run = spawnSync(process.execPath, [resolve(ROOT, 'scripts/start.mjs')], { env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(1);
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('airlock: downloading the Electron binary (first start only)…');
      expect(lines[1]).toMatch(/^airlock: no Electron binary here \(download failed: .+\) and no display for the preview; run `xvfb-run -a npm run preview`/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
