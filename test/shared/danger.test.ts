// The one danger ranking (shared/parser/danger.ts): what each removed span is, as an investigator
// triages it, from the parser's own meanings; ranked lists put the clipboard write before the
// colour codes whatever their counts; every meaning the sanitizer can report has a category.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DANGER_ORDER, dangerCounts, dangerOfKey, dangerRank, dangerTier, rankMeanings } from '../../shared/parser/danger';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { hostileStream } from '../helpers/arbitraries';
import { bytes, utf8 } from '../helpers/record';

const ESC = '\x1b';
const ST = `${ESC}\\`;

describe('categories from the sanitizer\'s own meanings', () => {
  const cases: Array<[string, string]> = [
    [`${ESC}]52;c;ZXZpbA==\x07`, 'clipboard'],
    [`${ESC}]8;;https://evil.example${ST}x${ESC}]8;;${ST}`, 'hyperlink'],
    [`${ESC}]0;all green${ST}`, 'title'],
    [`${ESC}]2;title\x07`, 'title'],
    [`${ESC}[21t`, 'reply'],
    [`${ESC}[6n`, 'reply'],
    [`${ESC}[c`, 'reply'],
    [`${ESC}P$qm${ST}`, 'reply'],
    [`${ESC}[8mhidden${ESC}[28m`, 'hidden'],
    ['\u{e0069}\u{e0067}', 'invisible'],
    ['a\u202eb', 'invisible'],
    [`${ESC}_apc payload${ST}`, 'payload'],
    [`${ESC}^pm${ST}`, 'payload'],
    [`${ESC}]1337;File=x${ST}`, 'payload'],
    [`${ESC}[2J`, 'screen'],
    [`${ESC}[1A`, 'screen'],
    [`${ESC}]11;#000000${ST}`, 'screen'],
    ['a\rb', 'screen'],
    [`${ESC}[31m`, 'colour'],
  ];
  for (const [input, want] of cases) {
    it(`${JSON.stringify(input)} → ${want}`, () => {
      const { report } = sanitize(utf8(input));
      const keys = Object.keys(report.meanings);
      expect(keys.length, `${JSON.stringify(input)} removed something`).toBeGreaterThan(0);
      // The most dangerous span of the input is of the expected category.
      expect(rankMeanings(report.meanings)[0].category, keys.join(', ')).toBe(want);
    });
  }

  it('invalid UTF-8 is its own category, ranked after screen control and before colour', () => {
    const { report } = sanitize(bytes('caf', [0xe9], '\n'));
    expect(rankMeanings(report.meanings)[0].category).toBe('encoding');
    expect(dangerRank('encoding')).toBeGreaterThan(dangerRank('screen'));
    expect(dangerRank('encoding')).toBeLessThan(dangerRank('colour'));
  });
});

describe('ranking', () => {
  it('puts one clipboard write before thousands of colour codes (count breaks ties within a category)', () => {
    const ranked = rankMeanings({ 'csi: SGR select graphic rendition': 5000, 'osc: OSC 52 clipboard access': 1, 'csi: CUU cursor up': 40, 'osc: OSC 8 hyperlink (open)': 3, 'osc: OSC 8 hyperlink (close)': 9 });
    expect(ranked.map((r) => r.key)).toEqual([
      'osc: OSC 52 clipboard access', 'osc: OSC 8 hyperlink (close)', 'osc: OSC 8 hyperlink (open)', 'csi: CUU cursor up', 'csi: SGR select graphic rendition',
    ]);
    expect(dangerCounts({ 'csi: SGR select graphic rendition': 5000, 'osc: OSC 52 clipboard access': 1, 'osc: OSC 8 hyperlink (open)': 3, 'osc: OSC 8 hyperlink (close)': 9 }))
      .toEqual({ clipboard: 1, hyperlink: 12, colour: 5000 });
  });

  it('follows the order the issue names: clipboard, hyperlinks, titles, hidden text, invisible channels, before colour', () => {
    const named = ['clipboard', 'hyperlink', 'title', 'hidden', 'invisible', 'colour'] as const;
    for (let i = 1; i < named.length; i++) expect(dangerRank(named[i - 1])).toBeLessThan(dangerRank(named[i]));
    expect(DANGER_ORDER.at(-1)).toBe('colour');
    expect(dangerTier('clipboard')).toBe('high');
    expect(dangerTier('payload')).toBe('high');
    expect(dangerTier('screen')).toBe('medium');
    expect(dangerTier('colour')).toBe('low');
  });

  it('every meaning the sanitizer reports has a category; ranked lists are ordered and complete', () => {
    fc.assert(fc.property(hostileStream(), (input) => {
      const { report } = sanitize(input);
      const ranked = rankMeanings(report.meanings);
      expect(ranked).toHaveLength(Object.values(report.meanings).filter((n) => n > 0).length);
      for (const r of ranked) expect(DANGER_ORDER).toContain(r.category);
      for (let i = 1; i < ranked.length; i++) {
        const a = ranked[i - 1];
        const b = ranked[i];
        expect(dangerRank(a.category) < dangerRank(b.category) || (a.category === b.category && a.count >= b.count)).toBe(true);
      }
      const counts = dangerCounts(report.meanings);
      expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(Object.values(report.meanings).reduce((x, y) => x + y, 0));
    }), { numRuns: 200 });
  });

  it('a key it does not know is a payload, never an error', () => {
    expect(dangerOfKey('nonsense')).toBe('payload');
    expect(dangerOfKey('osc: OSC unknown command')).toBe('payload');
  });
});
