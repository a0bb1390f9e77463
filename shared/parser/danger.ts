// How dangerous a removed span is, defined once for the CLI and the app: what an investigator
// triages first. A span's category comes from its class and its meaning (the parser's fixed
// meaning tables, never input text), so a report's `class: meaning` keys rank the same way
// everywhere: vault listings, import summaries, the viewer's chips and its vault browser.
import { SPAN_CLASS_NAMES, SpanClass } from './span-class';

/**
 * Danger categories, most dangerous first. What each holds:
 * - clipboard: OSC 52 / OSC 5522 clipboard writes (and reads)
 * - hyperlink: OSC 8 hyperlinks (a label that hides where it points)
 * - title: window and icon titles (OSC 0/1/2/3): text a person reads outside the output
 * - reply: controls that make the terminal answer into its input (queries, reports, answerback)
 * - hidden: text the terminal hides (SGR 8 conceal) or one reading withholds
 * - invisible: invisible code points (tag characters, bidi controls, zero-width runs)
 * - payload: other strings a terminal swallows (DCS, APC, PM, SOS, other OSC commands)
 * - screen: cursor motion, erase, scrolling, modes, resets, palette: what rewrites the screen
 * - encoding: ill-formed UTF-8
 * - colour: SGR colour and attributes
 */
export const DANGER_ORDER = ['clipboard', 'hyperlink', 'title', 'reply', 'hidden', 'invisible', 'payload', 'screen', 'encoding', 'colour'] as const;

export type DangerCategory = (typeof DANGER_ORDER)[number];

/** Short plural labels, as a triage list shows them. */
export const DANGER_LABELS: Readonly<Record<DangerCategory, string>> = {
  clipboard: 'clipboard', hyperlink: 'hyperlinks', title: 'titles', reply: 'terminal replies', hidden: 'hidden text',
  invisible: 'invisible', payload: 'payloads', screen: 'screen control', encoding: 'invalid UTF-8', colour: 'colour',
};

/**
 * How loud a category is: `high` can act outside the output or hide text from the reader,
 * `medium` changes what the screen shows, `low` is formatting.
 */
export function dangerTier(category: DangerCategory): 'high' | 'medium' | 'low' {
  const rank = dangerRank(category);
  return rank <= dangerRank('payload') ? 'high' : category === 'colour' ? 'low' : 'medium';
}

/** Position of a category in {@link DANGER_ORDER} (0: most dangerous). */
export function dangerRank(category: DangerCategory): number {
  return DANGER_ORDER.indexOf(category);
}

const REPLY = /query|report|echoes text to input|answerback|request param/;

/** The danger category of a span of class `cls` (a {@link SpanClass} value) with `meaning`. */
export function dangerOf(cls: number, meaning: string): DangerCategory {
  switch (cls) {
    case SpanClass.Osc: {
      const m = /^OSC (\d+)/.exec(meaning);
      const command = m ? Number(m[1]) : -1;
      if (command === 52 || command === 5522) return 'clipboard';
      if (command === 8) return 'hyperlink';
      if (command >= 0 && command <= 3) return 'title';
      if (/colour|palette/.test(meaning)) return 'screen';
      if (/query/.test(meaning)) return 'reply';
      return 'payload';
    }
    case SpanClass.Withheld:
      return 'hidden';
    case SpanClass.Invisible:
      return 'invisible';
    case SpanClass.Dcs:
      return REPLY.test(meaning) ? 'reply' : 'payload';
    case SpanClass.Apc:
    case SpanClass.Pm:
    case SpanClass.Sos:
      return 'payload';
    case SpanClass.InvalidUtf8:
      return 'encoding';
    case SpanClass.Csi:
      if (meaning.includes('conceal')) return 'hidden';
      if (REPLY.test(meaning)) return 'reply';
      if (meaning.startsWith('SGR ')) return 'colour';
      return 'screen';
    case SpanClass.C0:
      return meaning.startsWith('ENQ') ? 'reply' : 'screen';
    case SpanClass.Esc:
    case SpanClass.C1:
      return REPLY.test(meaning) ? 'reply' : 'screen';
    default:
      return 'payload';
  }
}

/** The category of a report key `class: meaning` (as in `RemovalReport.meanings`). */
export function dangerOfKey(key: string): DangerCategory {
  const sep = key.indexOf(': ');
  const cls = (SPAN_CLASS_NAMES as readonly string[]).indexOf(sep < 0 ? key : key.slice(0, sep));
  return dangerOf(cls, sep < 0 ? '' : key.slice(sep + 2));
}

/** Report keys (`class: meaning` → count), most dangerous first; within a category, most frequent first. */
export function rankMeanings(meanings: Readonly<Record<string, number>>): Array<{ key: string; count: number; category: DangerCategory }> {
  return Object.entries(meanings)
    .filter(([, count]) => count > 0)
    .map(([key, count]) => ({ key, count, category: dangerOfKey(key) }))
    .sort((a, b) => dangerRank(a.category) - dangerRank(b.category) || b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Counts per category (only categories that occur), in {@link DANGER_ORDER}. */
export function dangerCounts(meanings: Readonly<Record<string, number>>): Partial<Record<DangerCategory, number>> {
  const counts: Partial<Record<DangerCategory, number>> = {};
  for (const [key, count] of Object.entries(meanings)) {
    if (count <= 0) continue;
    const c = dangerOfKey(key);
    counts[c] = (counts[c] ?? 0) + count;
  }
  return Object.fromEntries(DANGER_ORDER.filter((c) => counts[c] !== undefined).map((c) => [c, counts[c]!]));
}
