// The packaging config, checked offline: electron-builder's own schema validation of
// electron-builder.yml, the targets and icons, and the fuses the afterPack hook sets.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ROOT = join(__dirname, '../../..');
const yaml = require('js-yaml') as { load(s: string): Record<string, unknown> };
const config = yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, Record<string, unknown>> & Record<string, unknown>;

describe('electron-builder.yml', () => {
  it('passes electron-builder\'s schema validation', async () => {
    const { validateConfiguration, getConfig } = require('app-builder-lib/out/util/config/config') as { validateConfiguration(c: unknown, l: unknown): Promise<void>; getConfig(dir: string, path: string | null, opts: unknown): Promise<unknown> };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const loaded = await getConfig(ROOT, join(ROOT, 'electron-builder.yml'), null);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('app id, targets for linux (AppImage, deb), mac and win; icons exist', () => {
    expect(config.appId).toBe('org.airlock.viewer');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toBeDefined();
    expect(config.win.target).toBeDefined();
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) expect(existsSync(join(ROOT, 'assets/icons', `${size}x${size}.png`))).toBe(true);
    expect(existsSync(join(ROOT, String(config.mac.icon)))).toBe(true);
    expect(existsSync(join(ROOT, String(config.win.icon)))).toBe(true);
    const png = readFileSync(join(ROOT, 'assets/icons/512x512.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(512);
  });

  it('ships only the built app (asar) and the demo samples', () => {
    expect(config.asar).toBe(true);
    expect(config.files).toEqual(expect.arrayContaining(['dist/app/**', 'dist/renderer/**', 'dist/prompt/**']));
    expect(JSON.stringify(config.files)).not.toMatch(/"app\/\*\*"|test|node_modules|vault/);
    expect(config.afterPack).toBe('scripts/fuses.cjs');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };
    expect(pkg.main).toBe('dist/app/main.cjs');
    expect(pkg.scripts.pack).toContain('electron-builder --dir');
  });
});

describe('fuses (afterPack)', () => {
  const fuses = require(join(ROOT, 'scripts/fuses.cjs')) as {
    FUSES: Record<string, boolean>;
    fuseConfig(platform: string, arch: string): Record<string, unknown>;
    electronBinaryPath(c: unknown): string;
  };
  const { FuseV1Options, FuseVersion } = require('@electron/fuses') as { FuseV1Options: Record<string, number | string>; FuseVersion: Record<string, string> };

  it('names each fuse with the required value', () => {
    expect(fuses.FUSES).toMatchObject({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableCookieEncryption: true,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      GrantFileProtocolExtraPrivileges: false,
    });
  });

  it('covers every fuse of the wire (strict), so an Electron upgrade cannot add one silently', () => {
    const names = Object.keys(FuseV1Options).filter((k) => Number.isNaN(Number(k)));
    expect(Object.keys(fuses.FUSES).sort()).toEqual(names.sort());
    const c = fuses.fuseConfig('linux', 'x64');
    expect(c).toMatchObject({ version: FuseVersion.V1, strictlyRequireAllFuses: true, resetAdHocDarwinSignature: false });
    expect(c[FuseV1Options.RunAsNode as number]).toBe(false);
    expect(c[FuseV1Options.OnlyLoadAppFromAsar as number]).toBe(true);
    expect(fuses.fuseConfig('darwin', 'arm64').resetAdHocDarwinSignature).toBe(true);
  });

  it('finds the packed binary on each platform', () => {
    const ctx = (p: string) => ({ appOutDir: '/out', electronPlatformName: p, packager: { appInfo: { productFilename: 'Airlock' }, executableName: 'airlock-viewer' } });
    expect(fuses.electronBinaryPath(ctx('linux'))).toBe('/out/airlock-viewer');
    expect(fuses.electronBinaryPath(ctx('darwin'))).toBe('/out/Airlock.app');
    expect(fuses.electronBinaryPath(ctx('win32'))).toBe('/out/Airlock.exe');
  });
});
