import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RAW_READ } from '../../../../shared/bridge/contract';
import { readRawRange } from '../../../../app/services/raw/read';

describe('readRawRange', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-raw-'));
    file = join(dir, 'raw');
    await writeFile(file, Buffer.alloc(3 * MAX_RAW_READ, 0x41));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads exactly the range, short at the end', async () => {
    expect((await readRawRange(file, 10, 20)).length).toBe(10);
    expect((await readRawRange(file, 3 * MAX_RAW_READ - 5, 3 * MAX_RAW_READ + 5)).length).toBe(5);
    expect((await readRawRange(file, 0, MAX_RAW_READ)).length).toBe(MAX_RAW_READ);
  });

  it('refuses more than 1 MiB, bad ranges, links and missing files', async () => {
    await expect(readRawRange(file, 0, MAX_RAW_READ + 1)).rejects.toMatchObject({ code: 'too-large' });
    await expect(readRawRange(file, 5, 4)).rejects.toMatchObject({ code: 'bad-request' });
    await expect(readRawRange(file, -1, 4)).rejects.toMatchObject({ code: 'bad-request' });
    const link = join(dir, 'link');
    await symlink('/etc/passwd', link);
    await expect(readRawRange(link, 0, 4)).rejects.toMatchObject({ code: 'ELOOP' });
    await expect(readRawRange(join(dir, 'gone'), 0, 4)).rejects.toMatchObject({ code: 'not-found' });
  });
});
