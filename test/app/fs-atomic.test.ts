import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, fsyncDir, isErrno, writeFileAtomic } from '../../app/files/fs-atomic';

let dir: string;
let savedUmask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-atomic-'));
  savedUmask = process.umask();
});
afterEach(() => {
  process.umask(savedUmask);
  rmSync(dir, { recursive: true, force: true });
});

const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

describe('writeFileAtomic', () => {
  it('writes the content with mode 0600 whatever the umask', async () => {
    for (const umask of [0o000, 0o022, 0o277]) {
      process.umask(umask);
      const p = join(dir, `f-${umask}`);
      await writeFileAtomic(p, 'hello');
      expect(await readFile(p, 'utf8')).toBe('hello');
      expect(await mode(p)).toBe(0o600);
    }
  });

  it('applies an explicit mode', async () => {
    const p = join(dir, 'g');
    await writeFileAtomic(p, new Uint8Array([1, 2, 3]), { mode: 0o640 });
    expect(await mode(p)).toBe(0o640);
    expect([...(await readFile(p))]).toEqual([1, 2, 3]);
  });

  it('replaces an existing file and leaves no temp files behind', async () => {
    const p = join(dir, 'h');
    await writeFileAtomic(p, 'one');
    await writeFileAtomic(p, 'two');
    expect(await readFile(p, 'utf8')).toBe('two');
    expect(await readdir(dir)).toEqual(['h']);
  });

  it('exclusive mode refuses to replace and cleans up its temp file', async () => {
    const p = join(dir, 'x');
    await writeFileAtomic(p, 'first', { exclusive: true });
    await expect(writeFileAtomic(p, 'second', { exclusive: true })).rejects.toSatisfy((e) => isErrno(e, 'EEXIST'));
    expect(await readFile(p, 'utf8')).toBe('first');
    expect(await readdir(dir)).toEqual(['x']);
  });

  it('fails (without leftovers) when the directory does not exist', async () => {
    await expect(writeFileAtomic(join(dir, 'nope', 'f'), 'x')).rejects.toSatisfy((e) => isErrno(e, 'ENOENT'));
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not follow a symlink planted at the target when replacing it', async () => {
    const { symlink } = await import('node:fs/promises');
    const outside = join(dir, 'outside');
    await writeFile(outside, 'keep');
    await symlink(outside, join(dir, 'link'));
    await writeFileAtomic(join(dir, 'link'), 'new');
    expect(await readFile(outside, 'utf8')).toBe('keep'); // rename replaced the link itself
  });
});

describe('ensurePrivateDir / fsyncDir', () => {
  it('creates nested dirs and forces 0700 on an existing wide directory', async () => {
    process.umask(0o000);
    const nested = join(dir, 'a', 'b');
    await ensurePrivateDir(nested);
    expect(await mode(nested)).toBe(0o700);
    const wide = join(dir, 'wide');
    await mkdir(wide);
    await chmod(wide, 0o777);
    await ensurePrivateDir(wide);
    expect(await mode(wide)).toBe(0o700);
  });

  it('fsyncs a directory', async () => {
    await expect(fsyncDir(dir)).resolves.toBeUndefined();
  });
});
