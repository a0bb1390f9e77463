import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitize } from '../../../../shared/sanitize';
import { Vault } from '../../../../app/vault';
import { buildDemoVault } from '../../../../app/services/import/demo';
import { removalSummary, VaultView } from '../../../../app/services/vault-view/view';

const SAMPLES = join(__dirname, '../../../../assets/samples/demo');

describe('vault view', () => {
  let dir: string;
  let view: VaultView;
  let vault: Vault;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-view-'));
    await chmod(dir, 0o700);
    vault = await buildDemoVault(join(dir, 'v'), SAMPLES);
    view = new VaultView(vault, { demo: true, version: '1' });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('summaries are sanitized, newest first, with removal totals', async () => {
    const list = await view.list();
    expect(list.map((r) => r.createdAt)).toEqual([...list.map((r) => r.createdAt)].sort().reverse());
    for (const r of list) {
      expect(r.title).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
      for (const a of r.artifacts) expect(a.ref).toBe(`restricted:sha256:${a.sha256}`);
    }
    const build = list.find((r) => r.title === 'build.log')!;
    expect(build.artifacts[0].removal.top[0].count).toBeGreaterThan(0);
    expect(build.artifacts[0].rawAvailable).toBe(true);
  });

  it('ranks the removal summary by danger: the clipboard write first, colour last, counts per category', async () => {
    const build = (await view.list()).find((r) => r.title === 'build.log')!.artifacts[0].removal;
    // build.log has one OSC 52 and many more SGR: by count the clipboard write was pushed out.
    expect(build.top[0].key).toBe('osc: OSC 52 clipboard access');
    expect(build.top.map((t) => t.key)).toContain('osc: OSC 8 hyperlink (open)');
    expect(build.danger?.clipboard).toBe(1);
    expect(build.danger?.colour).toBeGreaterThan(build.danger!.clipboard!);
    const order = Object.keys(build.danger!);
    expect(order[0]).toBe('clipboard');
    expect(order.at(-1)).toBe('colour');
  });

  it('locates by ref; unknown and malformed refs are refused', async () => {
    const [r] = await view.list();
    expect((await view.locate(r.artifacts[0].ref)).record.id).toBe(r.id);
    await expect(view.locate(`restricted:sha256:${'0'.repeat(64)}`)).rejects.toMatchObject({ code: 'not-found' });
    await expect(view.locate('../../etc/passwd')).rejects.toMatchObject({ name: 'VaultError', code: 'bad-ref' });
  });

  it('info names the window and the artifact the app was started on', async () => {
    view.setOpen('restricted:sha256:' + 'a'.repeat(64));
    expect(await view.info(7)).toMatchObject({ demo: true, windowId: 7, records: 5, open: 'restricted:sha256:' + 'a'.repeat(64) });
  });

  it('removal summary of a missing report is empty', () => {
    expect(removalSummary(null)).toEqual({ removedSpans: 0, removedBytes: 0, top: [], truncated: false, withheldToEnd: false, ambiguous: 0, danger: {} });
  });

  it('removal summary carries the one-reading fields: withheld to end, ambiguous stretches', () => {
    // A raw 0x9D opens an OSC for an 8-bit terminal only: the readings disagree to the end.
    const toEnd = sanitize(Buffer.from('ok \x9d0;hidden from one reading', 'latin1')).report;
    expect(toEnd.withheld_to_end).toBe(true);
    expect(removalSummary(toEnd)).toMatchObject({ withheldToEnd: true, ambiguous: 1 });
    const both = sanitize(Buffer.from('a \x1b]52;c;\x9c shown to one\x07 b', 'latin1')).report;
    expect(removalSummary(both)).toMatchObject({ withheldToEnd: false, ambiguous: 1 });
    // A report stored before the rule (no such fields) reads as none.
    const old = { ...both } as Record<string, unknown>;
    delete old.ambiguous;
    delete old.withheld_to_end;
    expect(removalSummary(old as never)).toMatchObject({ withheldToEnd: false, ambiguous: 0 });
  });
});
