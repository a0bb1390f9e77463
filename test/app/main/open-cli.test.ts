// `airlock open FILE|restricted:sha256:…`: validation, the import of a FILE through the import
// service (as `airlock vault import`), and which viewer it starts (spawn faked): Electron, else
// the preview of a source checkout, else one clear line and nothing imported.
import { PassThrough } from 'node:stream';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runOpen, type OpenDeps } from '../../../app/cli/commands/open';
import { COMMANDS } from '../../../app/cli/commands';
import { importIntoVault } from '../../../app/cli/vault/import';
import type { CliIo } from '../../../app/cli/command';

const ROOT = join(__dirname, '../../..');
const BUILD_LOG = join(ROOT, 'assets/samples/demo/build.log');
const io = (env: NodeJS.ProcessEnv = {}): CliIo & { err: () => string } => {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d) => (text += String(d)));
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env, cwd: ROOT, err: () => text };
};
const deps = (electron: string | null, preview: string | null = null) => {
  const launched: { bin: string; args: string[] }[] = [];
  const imports: string[] = [];
  const d: OpenDeps = {
    electron: () => electron,
    mainScript: () => join(ROOT, 'package.json'),
    launch: (bin, args) => void launched.push({ bin, args }),
    preview: () => preview,
    importFile: async (dir, file) => {
      imports.push(file);
      return importIntoVault(dir, file);
    },
  };
  return { d, launched, imports };
};

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-open-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('airlock open', () => {
  it('is registered as a command', () => {
    expect(COMMANDS.map((c) => c.name)).toContain('open');
  });

  it('imports a file into the vault (as vault import does) and starts Electron on its reference', async () => {
    const { d, launched, imports } = deps('/opt/electron');
    const vault = join(dir, 'v');
    const out = io();
    expect(await runOpen(['assets/samples/demo/build.log', '--vault', vault], out, d)).toBe(0);
    expect(imports).toEqual([BUILD_LOG]);
    const ref = /imported .* as (restricted:sha256:[0-9a-f]{64})/.exec(out.err())![1];
    expect(launched[0]).toEqual({ bin: '/opt/electron', args: [join(ROOT, 'package.json'), `--open=${ref}`, `--vault=${vault}`] });
    expect((await readdir(join(vault, 'records'))).length).toBe(1);
  });

  it('opens a reference as it is, without importing', async () => {
    const { d, launched, imports } = deps('/opt/electron');
    const ref = `restricted:sha256:${'a'.repeat(64)}`;
    expect(await runOpen([ref], io(), d)).toBe(0);
    expect(launched[0].args).toEqual([join(ROOT, 'package.json'), `--open=${ref}`]);
    expect(imports).toEqual([]);
  });

  it('refuses bad references, missing files, directories and extra arguments', async () => {
    const { d, launched, imports } = deps('/opt/electron');
    await expect(runOpen(['restricted:sha256:../../etc/passwd'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['nope.bin'], io(), d)).rejects.toThrow(/no such file/);
    await expect(runOpen(['assets'], io(), d)).rejects.toThrow(/not a regular file/);
    await expect(runOpen([], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['a', 'b'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['--evil', 'a'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    expect(launched).toEqual([]);
    expect(imports).toEqual([]);
  });

  it('without Electron, a source checkout starts the preview on the imported artifact (with a display)', async () => {
    const { d, launched } = deps(null, '/src/airlock/scripts/preview.mjs');
    const vault = join(dir, 'v');
    const out = io({ DISPLAY: ':99' });
    expect(await runOpen([BUILD_LOG, '--vault', vault], out, d)).toBe(0);
    const ref = /as (restricted:sha256:[0-9a-f]{64})/.exec(out.err())![1];
    expect(launched).toEqual([{ bin: process.execPath, args: ['/src/airlock/scripts/preview.mjs', `--open=${ref}`, `--vault=${vault}`] }]);
    expect(out.err()).toMatch(/in the preview/);
  });

  it('without a display the preview is refused before anything is imported', async () => {
    const { d, launched, imports } = deps(null, '/src/airlock/scripts/preview.mjs');
    await expect(runOpen([BUILD_LOG, '--vault', join(dir, 'v')], io({}), d)).rejects.toThrow(/needs a display/);
    expect(imports).toEqual([]);
    expect(launched).toEqual([]);
  });

  it('with no viewer at all: one clear line, and nothing imported', async () => {
    const { d, imports } = deps(null, null);
    await expect(runOpen([BUILD_LOG, '--vault', join(dir, 'v')], io({ DISPLAY: ':0' }), d)).rejects.toThrow(/no viewer here: the Electron binary is not installed.*airlock vault import/);
    expect(imports).toEqual([]);
  });
});
