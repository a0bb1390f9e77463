// `airlock open FILE|restricted:sha256:…`: validation and how it starts the app (spawn faked).
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOpen, type OpenDeps } from '../../../app/cli/commands/open';
import { COMMANDS } from '../../../app/cli/commands';
import type { CliIo } from '../../../app/cli/command';

const ROOT = join(__dirname, '../../..');
const io = (): CliIo & { err: () => string } => {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d) => (text += String(d)));
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: {}, cwd: ROOT, err: () => text };
};
const deps = (electron: string | null) => {
  const launched: { bin: string; args: string[] }[] = [];
  const d: OpenDeps = { electron: () => electron, mainScript: () => join(ROOT, 'package.json'), launch: (bin, args) => void launched.push({ bin, args }) };
  return { d, launched };
};

describe('airlock open', () => {
  it('is registered as a command', () => {
    expect(COMMANDS.map((c) => c.name)).toContain('open');
  });

  it('starts Electron on a file (absolute path) or a reference, with the vault', async () => {
    const { d, launched } = deps('/opt/electron');
    expect(await runOpen(['assets/samples/demo/build.log', '--vault', 'v'], io(), d)).toBe(0);
    expect(launched[0]).toEqual({ bin: '/opt/electron', args: [join(ROOT, 'package.json'), `--open=${join(ROOT, 'assets/samples/demo/build.log')}`, `--vault=${join(ROOT, 'v')}`] });
    const ref = `restricted:sha256:${'a'.repeat(64)}`;
    expect(await runOpen([ref], io(), d)).toBe(0);
    expect(launched[1].args[1]).toBe(`--open=${ref}`);
  });

  it('refuses bad references, missing files, directories and extra arguments', async () => {
    const { d, launched } = deps('/opt/electron');
    await expect(runOpen(['restricted:sha256:../../etc/passwd'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['nope.bin'], io(), d)).rejects.toThrow(/no such file/);
    await expect(runOpen(['assets'], io(), d)).rejects.toThrow(/not a regular file/);
    await expect(runOpen([], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['a', 'b'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    await expect(runOpen(['--evil', 'a'], io(), d)).rejects.toMatchObject({ name: 'UsageError' });
    expect(launched).toEqual([]);
  });

  it('without Electron: one clear line naming npm run preview', async () => {
    const { d } = deps(null);
    await expect(runOpen(['assets/samples/demo/build.log'], io(), d)).rejects.toThrow(/Electron binary is not installed.*npm run preview/);
  });
});
