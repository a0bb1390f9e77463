// `airlock vault import FILE [--format …]`: a transcript into the vault through the import service
// ("Open file…" in the app uses the same), audited, with what was removed ranked by danger; a
// file that is not what --format says stores nothing; links, directories, FIFOs and missing
// files are refused in one line.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../app/audit';
import { Vault } from '../../app/vault';
import { runAirlock } from '../helpers/cli';

const SAMPLES = join(__dirname, '../../assets/samples/demo');
let dir = '';
let vault = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'airlock-import-'));
  vault = join(dir, 'vault');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

async function stored(): Promise<{ records: number; raw: number; temp: number }> {
  const count = async (p: string) => (await readdir(p, { recursive: true }).catch(() => [] as string[])).length;
  return { records: await count(join(vault, 'records')), raw: await count(join(vault, 'raw')), temp: await count(join(vault, 'tmp')) };
}

describe('airlock vault import', () => {
  it('stores a plain file, audited, and names what was removed, most dangerous first', async () => {
    const file = join(dir, 'build.log');
    await writeFile(file, `${'\x1b[32mok\x1b[0m step\n'.repeat(40)}\x1b]52;c;Y3VybCBldmlsfHNo\x07done\n`);
    const r = await runAirlock(['vault', 'import', file, '--vault', vault]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = r.out.toString();
    expect(out).toMatch(/^imported build\.log \(plain\) as record \S+\n {2}file {2}restricted:sha256:[0-9a-f]{64} {2}\d+ B {2}81 spans removed: clipboard ×1, colour ×80\nview it: airlock open restricted:sha256:[0-9a-f]{64} --vault /);
    const v = await Vault.open(vault);
    const { records } = await v.listRecords();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'import', source: 'file', title: 'build.log' });
    const actions = (await AuditLog.forVault(vault).list()).map((l) => ('entry' in l ? l.entry.action : 'bad'));
    expect(actions).toEqual(['artifact.imported']);
  });

  it('--json: the record, its artifacts (ref, digest, size) and removed spans per danger category', async () => {
    const r = await runAirlock(['vault', 'import', join(SAMPLES, 'build.log'), '--vault', vault, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out.toString());
    expect(j).toMatchObject({ format: 'plain', rebuilt: false, file: { name: 'build.log' } });
    expect(j.artifacts).toHaveLength(1);
    expect(j.artifacts[0].ref).toBe(`restricted:sha256:${j.artifacts[0].sha256}`);
    expect(Object.keys(j.artifacts[0].danger)[0]).toBe('clipboard');
  });

  it('tells the formats apart (auto), and takes --format', async () => {
    const cast = await runAirlock(['vault', 'import', join(SAMPLES, 'deploy.cast'), '--vault', vault, '--json']);
    expect(JSON.parse(cast.out.toString())).toMatchObject({ format: 'asciicast', rebuilt: true });
    const script = await runAirlock(['vault', 'import', join(SAMPLES, 'session.typescript'), '--vault', vault, '--json']);
    expect(JSON.parse(script.out.toString())).toMatchObject({ format: 'script' });
    const plain = await runAirlock(['vault', 'import', join(SAMPLES, 'deploy.cast'), '--vault', vault, '--format', 'plain', '--json']);
    expect(JSON.parse(plain.out.toString())).toMatchObject({ format: 'plain', rebuilt: false });
    const timed = await runAirlock(['vault', 'import', join(SAMPLES, 'session.typescript'), '--vault', vault, '--format', 'script', '--timing', join(SAMPLES, 'session.timing'), '--json']);
    expect(timed.code).toBe(0);
  });

  it('a file that is not what --format says: one line, exit 1, nothing stored', async () => {
    const file = join(dir, 'plain.log');
    await writeFile(file, 'just text\n');
    for (const format of ['asciicast', 'script']) {
      const r = await runAirlock(['vault', 'import', file, '--vault', vault, '--format', format]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^airlock vault: cannot import .*plain\\.log as ${format}: .+\\n$`));
      expect(r.out.length).toBe(0);
    }
    expect(await stored()).toMatchObject({ records: 0, temp: 0 });
    expect((await stored()).raw).toBeLessThanOrEqual(1); // at most the empty sha256: directory
  });

  it('refuses what is not a regular file, and bad options, in one line', async () => {
    const target = join(dir, 'real.log');
    await writeFile(target, 'x\n');
    await symlink(target, join(dir, 'link.log'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const cases: Array<[string[], number, RegExp]> = [
      [['vault', 'import', join(dir, 'nope.log')], 1, /no such file: .*nope\.log/],
      [['vault', 'import', dir], 1, /not a regular file/],
      [['vault', 'import', join(dir, 'link.log')], 1, /is a symbolic link: give the file it points to/],
      [['vault', 'import', join(dir, 'pipe')], 1, /not a regular file/],
      [['vault', 'import'], 2, /import needs a FILE/],
      [['vault', 'import', target, target], 2, /import takes one FILE/],
      [['vault', 'import', target, '--format', 'pdf'], 2, /--format must be auto, plain, script or asciicast/],
      [['vault', 'import', target, '--format', 'plain', '--timing', target], 2, /--timing goes with a script/],
      [['vault', 'import', target, '--timing', join(dir, 'none')], 1, /no timing file/],
    ];
    for (const [argv, code, message] of cases) {
      const r = await runAirlock([...argv, '--vault', vault]);
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.err.split('\n').filter(Boolean)[0], argv.join(' ')).toMatch(message);
    }
    expect((await stored()).records).toBe(0);
  });
});
