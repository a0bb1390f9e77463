import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../../app/audit';
import { Vault } from '../../../../app/vault';
import { buildDemoVault } from '../../../../app/services/import/demo';
import { detectKind, importFile } from '../../../../app/services/import/importer';
import { parseTiming } from '../../../../app/services/import/script';
import { parseCastHeader } from '../../../../app/services/import/asciicast';

const SAMPLES = join(__dirname, '../../../../assets/samples/demo');

describe('import', () => {
  let dir: string;
  let vault: Vault;
  let audit: AuditLog;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-import-'));
    await chmod(dir, 0o700);
    vault = await Vault.open(join(dir, 'v'), { create: true });
    audit = AuditLog.forVault(vault.root);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('plain bytes: the artifact is the file, byte for byte', async () => {
    const file = join(dir, 'x.bin');
    const bytes = Buffer.from('a\x1b]52;c;SECRET\x07b\xff\n', 'latin1');
    await writeFile(file, bytes);
    const { record, source } = await importFile(vault, audit, file);
    expect(source).toBe('file');
    expect(record.raw.file.size).toBe(bytes.length);
    expect(await readFile(vault.rawPath(record.raw.file.sha256))).toEqual(bytes);
    expect((record.sanitized as { file: string }).file).toBe('ab\uFFFD\n');
    expect(record.rebuilt).toBe(false);
    const entries = await audit.list();
    expect(entries.at(-1)).toMatchObject({ entry: { action: 'artifact.imported', source: 'file', rebuilt: false } });
  });

  it('script(1): header and footer are parsed out, session bytes kept exactly, timing makes a chunk log', async () => {
    const path = join(SAMPLES, 'session.typescript');
    const { record } = await importFile(vault, audit, path, { timingPath: join(SAMPLES, 'session.timing') });
    const whole = await readFile(path);
    const raw = await readFile(vault.rawPath(record.raw.stdout.sha256));
    const header = whole.indexOf(0x0a) + 1;
    const footer = whole.lastIndexOf(Buffer.from('\nScript done on '));
    expect(raw).toEqual(whole.subarray(header, footer));
    const meta = record.metadata as { command: string; exit_code: number; script: { timing: { matches: boolean }; footer_bytes: number } };
    expect(meta).toMatchObject({ command: 'bash', exit_code: 0 });
    expect(meta.script.timing.matches).toBe(true);
    expect(meta.script.footer_bytes).toBe(whole.length - footer);
    const chunks = record.chunks as { rows: unknown[][] };
    expect(chunks.rows.length).toBeGreaterThan(10);
    expect(record.source).toBe('script');
  });

  it('script(1): finds the timing file beside the typescript', async () => {
    const { record } = await importFile(vault, audit, join(SAMPLES, 'session.typescript'));
    expect((record.metadata as { script: { timing: { matches: boolean } | null } }).script.timing?.matches).toBe(true);
    const bare = await importFile(vault, audit, join(SAMPLES, 'session.typescript'), { noTimingSearch: true });
    expect((bare.record.metadata as { script: { timing: unknown } }).script.timing).toBeNull();
  });

  it('asciicast v2 and v3: rebuilt from decoded text, say so', async () => {
    const v2 = await importFile(vault, audit, join(SAMPLES, 'deploy.cast'));
    expect(v2.source).toBe('asciicast');
    expect(v2.record.rebuilt).toBe(true);
    const raw = (await readFile(vault.rawPath(v2.record.raw.stdout.sha256))).toString('utf8');
    expect(raw.startsWith('\x1b]0;deploy: staging\x07')).toBe(true);
    expect(raw).toContain('done: 3 pods rolled out\r\n');
    const v3 = await importFile(vault, audit, join(SAMPLES, 'release-v3.cast'));
    expect(v3.record).toMatchObject({ rebuilt: true, exit_code: 2 });
    const meta = v3.record.metadata as { asciicast: { version: number; input_events: number }; command: string };
    expect(meta.asciicast).toMatchObject({ version: 3, input_events: 1 });
    expect(meta.command).toBe('make release');
    // v3 times are intervals: the last output event is at 0.1+0.2+0.05+0.3+0.4+0.1 s.
    const rows = (v3.record.chunks as { rows: number[][] }).rows;
    expect(rows.at(-1)![7]).toBe(1150);
    expect((await audit.list()).at(-1)).toMatchObject({ entry: { rebuilt: true } });
  });

  it('detects kinds from the name and the first bytes', () => {
    expect(detectKind('a.cast', new Uint8Array())).toBe('asciicast');
    expect(detectKind('rec', Buffer.from('{"version": 2, "width": 80}\n'))).toBe('asciicast');
    expect(detectKind('typescript', Buffer.from('Script started on 2026-01-01 00:00:00+00:00 [TERM="xterm"]\nhi'))).toBe('script');
    expect(detectKind('x.log', Buffer.from('{"version": 9}\n'))).toBe('file');
  });

  it('reads classic and advanced timing files and refuses garbage', () => {
    expect(parseTiming('0.5 10\n1.25 3\n')).toEqual([{ delayMs: 500, bytes: 10 }, { delayMs: 1250, bytes: 3 }]);
    expect(parseTiming('H 0 START_TIME x\nI 0.5 1\nO 0.25 4\nS 0.1 SIGWINCH\n')).toEqual([{ delayMs: 750, bytes: 4 }]);
    expect(() => parseTiming('rm -rf /\n')).toThrow(/timing file/);
    expect(() => parseCastHeader('{"version": 1}')).toThrow(/unsupported version/);
  });

  it('refuses what is not a regular file', async () => {
    await expect(importFile(vault, audit, dir)).rejects.toThrow(/not a regular file/);
  });

  it('the demo vault: built once, five samples, audited, verifiable', async () => {
    const demoDir = join(dir, 'demo');
    const demo = await buildDemoVault(demoDir, SAMPLES);
    const { records } = await demo.listRecords();
    expect(records.map((r) => r.source ?? r.kind).sort()).toEqual(['asciicast', 'asciicast', 'capture', 'file', 'script']);
    const capture = records.find((r) => r.kind === 'capture')!;
    expect(Object.keys(capture.raw)).toEqual(['stdout', 'stderr']);
    const rows = (capture.chunks as { rows: [number, number, string][] }).rows;
    expect(rows.map((r) => r[2]).slice(0, 3)).toEqual(['stdout', 'stderr', 'stdout']);
    await buildDemoVault(demoDir, SAMPLES);
    expect((await demo.listRecords()).records).toHaveLength(5);
    const report = await demo.verify();
    expect(report.problems ?? []).toEqual([]);
    expect((await AuditLog.forVault(demo.root).verify()).ok).toBe(true);
  });
});
