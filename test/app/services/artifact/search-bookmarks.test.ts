// Searches (raw: hex with wildcards and text, within a range, across chunk edges, bounded; text:
// case folding, hits mapped to raw), bookmarks (owner-only, atomic, serialized), chunk log.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_HITS } from '../../../../shared/bridge/contract';
import fc from 'fast-check';
import { foldAscii, parseHexPattern, SEARCH_CHUNK } from '../../../../app/services/artifact/search';
import { newRecordId } from '../../../../app/vault';
import { sanitize } from '../../../../shared/sanitize';
import { fixture, indexed, type Fixture } from './helpers';

function naive(hay: Uint8Array, pat: Uint8Array, mask?: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + pat.length <= hay.length; i++) {
    let ok = true;
    for (let k = 0; k < pat.length; k++) if ((!mask || mask[k]) && hay[i + k] !== pat[k]) { ok = false; break; }
    if (ok) out.push(i);
  }
  return out;
}

describe('searchRaw', () => {
  let f: Fixture;
  let ref: string;
  let bytes: Buffer;
  beforeAll(async () => {
    f = await fixture();
    bytes = Buffer.alloc(SEARCH_CHUNK * 2 + 1000, 0x2e);
    // Hits straddling both chunk edges at every split of the pattern, plus some in the middle.
    const pat = Buffer.from('\x1b]52;c;');
    for (const edge of [SEARCH_CHUNK, SEARCH_CHUNK * 2]) for (let k = 1; k < pat.length; k++) pat.copy(bytes, edge - k + (k - 1) * 16 - (pat.length * 16));
    for (const edge of [SEARCH_CHUNK, SEARCH_CHUNK * 2]) for (let k = 1; k < pat.length; k++) pat.copy(bytes, edge - k + 64 * k);
    pat.copy(bytes, SEARCH_CHUNK - 3);
    pat.copy(bytes, SEARCH_CHUNK * 2 - 5);
    pat.copy(bytes, 0);
    pat.copy(bytes, bytes.length - pat.length);
    ref = f.add(bytes).ref;
  });
  afterAll(() => f.cleanup());

  it('finds hex patterns with wildcards across chunk edges, exactly once each', async () => {
    for (const pattern of ['1b 5d 35 32 3b 63 3b', '1b5d??323b', '?? 5d 35', '3b 63 3b ??']) {
      const p = parseHexPattern(pattern);
      const got = await f.service.searchRaw(ref, null, { mode: 'hex', pattern });
      expect(got.hits).toEqual(naive(bytes, p.bytes, p.mask));
      expect(got.total).toBe(got.hits.length);
      expect(got.complete).toBe(true);
    }
    const got = await f.service.searchRaw(ref, null, { mode: 'text', pattern: ']52;c;' });
    expect(got.hits).toEqual(naive(bytes, Buffer.from(']52;c;')));
    expect(got.hits).toContain(SEARCH_CHUNK - 2);
  });

  it('stays inside the granted range (a hit must fit in it)', async () => {
    const all = (await f.service.searchRaw(ref, null, { mode: 'hex', pattern: '1b 5d' })).hits;
    const range: [number, number] = [SEARCH_CHUNK - 3, SEARCH_CHUNK * 2 - 4];
    const got = await f.service.searchRaw(ref, range, { mode: 'hex', pattern: '1b 5d' });
    expect(got.hits).toEqual(all.filter((h) => h >= range[0] && h + 2 <= range[1]));
    expect((await f.service.searchRaw(ref, [0, 1], { mode: 'hex', pattern: '1b 5d' })).hits).toEqual([]);
  });

  it('bounds the hit list but counts every hit', async () => {
    const got = await f.service.searchRaw(ref, null, { mode: 'text', pattern: '..' });
    expect(got.hits.length).toBe(MAX_SEARCH_HITS);
    expect(got.total).toBeGreaterThan(MAX_SEARCH_HITS);
    expect(got.complete).toBe(false);
    const wild = await f.service.searchRaw(ref, [10, 20], { mode: 'hex', pattern: '?? ??' });
    expect(wild.hits).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect((await f.service.searchRaw(ref, null, { mode: 'hex', pattern: '????' })).total).toBe(bytes.length - 1);
  });

  it('refuses bad hex patterns', async () => {
    for (const bad of ['1', 'zz', '1b 5', '?', '1b?']) {
      await expect(f.service.searchRaw(ref, null, { mode: 'hex', pattern: bad })).rejects.toThrow(/hex pattern/);
    }
  });
});

describe('searchText', () => {
  it('folds exactly A-Z, four bytes at a time, at any alignment', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat({ max: 3 }), (bytes, shift) => {
      const buf = new Uint8Array(bytes.length + shift);
      buf.set(bytes, shift);
      const view = buf.subarray(shift);
      foldAscii(view);
      expect([...view]).toEqual([...bytes].map((c) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c)));
    }), { numRuns: 500 });
  });

  it('finds text hits, folds ASCII case, maps hits to raw offsets', async () => {
    const f = await fixture({ pageBytes: 64 });
    try {
      const raw = Buffer.from(`Error one\n\x1b[31mERR\x1b[0mOR two\r\nerror três\n${'pad '.repeat(100)}eRRor`);
      const { ref } = await indexed(f, raw);
      const ci = await f.service.searchText(ref, 'error', {});
      expect(ci.total).toBe(4);
      expect(ci.hits[0]).toBe(0);
      expect(ci.hits[1]).toBe(raw.indexOf('ERR'));
      expect(ci.hits[2]).toBe(raw.indexOf('error'));
      expect(ci.hits[3]).toBe(raw.lastIndexOf('eRRor'));
      const cs = await f.service.searchText(ref, 'error', { caseSensitive: true });
      expect(cs.hits).toEqual([raw.indexOf('error')]);
      // A hit through removed bytes: ERR<SGR>OR is ERROR in the text.
      expect((await f.service.searchText(ref, 'ERROR two', { caseSensitive: true })).hits).toEqual([raw.indexOf('ERR')]);
      expect((await f.service.searchText(ref, 'três', {})).hits).toEqual([raw.indexOf('três')]);
      expect((await f.service.searchText(ref, '\x1b[31m', {})).total).toBe(0);
      // Non-ASCII letters fold by Unicode case, on character boundaries only: 'Ã' (C3 83) never
      // matches inside 'ダ' (E3 83 80); 'a' never matches 'ã'.
      const cjk = await indexed(f, Buffer.from('ダ Ã ã'));
      expect((await f.service.searchText(cjk.ref, 'Ã', {})).hits).toEqual([Buffer.from('ダ ').length, Buffer.from('ダ Ã ').length]);
      expect((await f.service.searchText(cjk.ref, 'Ã', { caseSensitive: true })).hits).toEqual([Buffer.from('ダ ').length]);
      expect((await f.service.searchText(cjk.ref, 'a', {})).total).toBe(0);
      expect((await f.service.searchText(ref, 'x'.repeat(5000), {})).total).toBe(0);
    } finally {
      await f.cleanup();
    }
  });
});

describe('searchText with Unicode case folding', () => {
  it('matches case variants of non-ASCII letters (Cyrillic, Greek, German, Turkish), through removed bytes, across chunk edges', async () => {
    const f = await fixture({ pageBytes: 4096 });
    try {
      const head = Buffer.from('ОШИБКА: файл\n\x1b[31mОши\x1b[0mбка два\nΣΟΦΊΑ σοφία ΟΔΟΣ οδος STRASSE straße Straße\n');
      // The last one straddles the first search chunk's edge in the sanitized text (5 bytes before it).
      const pad = 'x'.repeat(SEARCH_CHUNK - 5 - sanitize(head).text.length);
      const raw = Buffer.concat([head, Buffer.from(`${pad}ошибка at the edge\nİstanbul`)]);
      const { ref } = await indexed(f, raw);
      const at = (s: string, from = 0): number => raw.indexOf(s, from);
      expect((await f.service.searchText(ref, 'ошибка', {})).hits).toEqual([0, at('Оши'), at('ошибка')]);
      expect((await f.service.searchText(ref, 'ошибка', { caseSensitive: true })).hits).toEqual([at('ошибка')]);
      expect((await f.service.searchText(ref, 'σοφία', {})).hits).toEqual([at('ΣΟΦΊΑ'), at('σοφία')]);
      // Final sigma is the same letter.
      expect((await f.service.searchText(ref, 'οδος', {})).hits).toEqual([at('ΟΔΟΣ'), at('οδος')]);
      expect((await f.service.searchText(ref, 'straße', {})).hits).toEqual([at('STRASSE'), at('straße'), at('Straße')]);
      expect((await f.service.searchText(ref, 'İstanbul', {})).hits).toEqual([at('İstanbul')]);
      expect((await f.service.searchText(ref, 'ШИБ', {})).total).toBe(3);
    } finally {
      await f.cleanup();
    }
  });
});

describe('bookmarks', () => {
  it('are stored per artifact, owner-only, atomically, with ids b-<16 hex>', async () => {
    const f = await fixture();
    try {
      const { ref, sha } = f.add(Buffer.from('abc'));
      expect(await f.service.listBookmarks(ref)).toEqual([]);
      const note = 'suspicious OSC 52 \x1b]52;c;x\x07 <b>"quoted"</b>';
      const saved = await Promise.all(Array.from({ length: 20 }, (_, i) => f.service.saveBookmark(ref, { offset: 20 - i, length: 1, note: i === 0 ? note : `n${i}` })));
      for (const b of saved) expect(b.id).toMatch(/^b-[0-9a-f]{16}$/);
      const list = await f.service.listBookmarks(ref);
      expect(list).toHaveLength(20);
      expect(list.map((b) => b.offset)).toEqual([...list.map((b) => b.offset)].sort((a, b) => a - b));
      expect(list.find((b) => b.id === saved[0].id)!.note).toBe(note);
      const dir = join(f.vault.root, 'bookmarks');
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, `${sha}.json`)).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual([`${sha}.json`]); // no temp files left
      expect(JSON.parse(readFileSync(join(dir, `${sha}.json`), 'utf8')).bookmarks).toHaveLength(20);
      await f.service.deleteBookmark(ref, saved[3].id);
      expect((await f.service.listBookmarks(ref)).some((b) => b.id === saved[3].id)).toBe(false);
      await expect(f.service.deleteBookmark(ref, saved[3].id)).rejects.toThrow(/no bookmark/);
      writeFileSync(join(dir, `${sha}.json`), 'garbage');
      await expect(f.service.listBookmarks(ref)).rejects.toThrow(/not valid JSON/);
    } finally {
      await f.cleanup();
    }
  });
});

describe('chunk log', () => {
  it('shows the record chunk log rows and refuses unknown records', async () => {
    const f = await fixture();
    try {
      const w = f.vault.createRawWriter();
      await w.write(Buffer.from('abc'));
      const { sha256: sha } = await w.commit();
      const id = newRecordId();
      await f.vault.putRecord({
        id, created_at: new Date().toISOString(), raw: { stdout: { sha256: sha, size: 3 }, stderr: { sha256: sha, size: 3 } },
        chunks: { fields: [], rows: [[0, 0, 'stdout', 0, 3, 0, 3, 1.5], [1, 2, 'stderr', 0, 3, 0, 3, 2], ['bad']], count: 3, coalesced: true, complete: true, omitted_from_seq: null },
      });
      const log = await f.service.getChunkLog(id);
      expect(log.rows).toEqual([
        { seq: 0, seqEnd: 0, stream: 'stdout', offset: 0, length: 3, textOffset: 0, textLength: 3, tMs: 1.5 },
        { seq: 1, seqEnd: 2, stream: 'stderr', offset: 0, length: 3, textOffset: 0, textLength: 3, tMs: 2 },
      ]);
      expect(log).toMatchObject({ total: 3, coalesced: true, complete: false });
      await expect(f.service.getChunkLog(newRecordId())).rejects.toThrow(/no record/);
    } finally {
      await f.cleanup();
    }
  });
});
