import { describe, expect, it } from 'vitest';
import { createFakeBridge } from './fake-bridge';

describe('fake bridge', () => {
  it('lists records and builds lines whose pieces partition the raw bytes', async () => {
    const b = createFakeBridge();
    const recs = await b.listRecords();
    expect(recs).toHaveLength(3);
    const ref = recs[0].artifacts[0].ref;
    const page = await b.getTextLines(ref, 0, 100);
    expect(page.totalLines).toBeGreaterThan(5);
    let prev = 0;
    for (const line of page.lines) {
      expect(line.rawStart).toBe(prev);
      prev = line.rawEnd;
    }
    expect(prev).toBe(recs[0].artifacts[0].size);
    const osc52 = page.lines.flatMap((l) => l.pieces).find((p) => p.t === 'chip' && p.span.meaning.includes('52'));
    expect(osc52).toBeTruthy();
    if (process.env.DUMP) for (const l of page.lines) console.log(l.line, l.rawStart, l.rawEnd, JSON.stringify(l.pieces.map((p) => p.t === 'chip' ? `[${p.span.meaning}|${p.span.terminator}]` : p.t === 'text' ? p.text : '↵')));
  });
  it('periodic artifact of 4 GiB answers at the end', async () => {
    const b = createFakeBridge({ bigBytes: 4 * 2 ** 30 });
    const recs = await b.listRecords();
    const art = recs[2].artifacts[0];
    expect(art.size).toBe(4 * 2 ** 30);
    const outcome = await b.requestRawAccess(art.ref, {});
    if (outcome.state !== 'granted') throw new Error('denied');
    const page = await b.readRaw(outcome.grant.id, art.size - 16, 16);
    expect(page.bytes[15]).toBe(0x0a);
    const spans = await b.getSpans(art.ref, art.size - 64, 64);
    expect(spans.length).toBeGreaterThan(0);
    const pos = await b.textPositionOf(art.ref, art.size - 1);
    expect(pos!.line).toBe(2 ** 32 / 64 - 1);
  });
});
