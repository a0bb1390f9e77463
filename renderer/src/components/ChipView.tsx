// How a removed span is drawn in the text: a chip (an app-drawn box with an icon, a class and a
// short label) or, at the density the user chose, a thin mark in the class colour. Neither is
// text: no bytes of the artifact can draw a bordered box or a bar. What the label says is the
// caller's (lib/spans.ts chipLabel); how it is drawn is decided here, from the span's class and its
// danger category (shared/parser/danger.ts), so the two can change apart.
import type { SpanInfo } from '../../../shared/bridge/types';
import { dangerOf, dangerTier, type DangerCategory } from '../../../shared/parser/danger';
import { clsCss } from '../lib/spans';
import { useLayout, type ChipDensity } from '../stores/layout';

export interface ChipLabelParts {
  /** The class part (`CSI`, `OSC`, `UTF-8`). */
  readonly cls: string;
  /** What it is (`SGR`, `52 clipboard`). */
  readonly what: string;
}

export interface ChipViewProps {
  readonly span: SpanInfo;
  readonly label: ChipLabelParts;
  /** The accessible name (a mark has no visible text: this is all a screen reader hears). */
  readonly ariaLabel: string;
  readonly title: string;
  readonly selected: boolean;
  /** Position in the line (`data-piece`) and the line (`data-line`), for pointer and keyboard mapping. */
  readonly index: number;
  readonly line: number;
  /** Spans elided after this one in the same gap. */
  readonly more?: number;
}

/** Whether a span of this category is drawn as a full chip at `density` (else a thin mark). */
export function drawnAsChip(category: DangerCategory, density: ChipDensity): boolean {
  if (density === 'full') return true;
  if (density === 'balanced') return category !== 'colour';
  return dangerTier(category) === 'high';
}

export function ChipView(p: ChipViewProps) {
  const density = useLayout((l) => l.prefs.chipDensity);
  const category = dangerOf(p.span.cls, p.span.meaning);
  const chip = drawnAsChip(category, density);
  const common = {
    'data-testid': 'chip',
    'data-piece': p.index,
    'data-line': p.line,
    'data-offset': p.span.offset,
    'data-danger': category,
    role: 'button',
    tabIndex: -1,
    'aria-label': p.ariaLabel,
    title: p.title,
  } as const;
  const base = `${clsCss(p.span.cls)}${p.selected ? ' sel' : ''} tier-${dangerTier(category)}`;
  if (!chip) {
    return (
      <span className={`chip mark ${base}`} {...common} data-drawn="mark">
        <span className="mark-bar" aria-hidden="true" />
        {p.more ? <span className="mark-more" aria-hidden="true">+{p.more}</span> : null}
      </span>
    );
  }
  return (
    <span className={`chip ${base}`} {...common} data-drawn="chip">
      <span className="chip-icon" aria-hidden="true" />
      <span className="chip-cls">{p.label.cls}</span>
      <span className="chip-what">{p.label.what}</span>
      {p.more ? <span className="chip-more" title={`${p.more} more removed spans follow here without text between them`}>+{p.more}</span> : null}
    </span>
  );
}
