// Where the workspace's panes go, as a pure function of the space there is, so every window size
// gets a layout in which no pane overlaps another or leaves the window and the sanitized text
// keeps at least a third of the width. Sizes the user chose (splitters) are preferences: they
// are honoured as far as those rules allow.

/** The user's choices, remembered across sessions (stores/layout.ts). */
export interface LayoutPrefs {
  /** Width of the side panel (report, search, bookmarks, screen, inspector) in px. */
  readonly sideWidth: number;
  /** The side panel is folded to a rail of tab buttons. */
  readonly sideCollapsed: boolean;
  /** Stacked layout: the hex view's share of the height it shares with the text (0..1). */
  readonly hexShare: number;
  /** `auto`: hex and text side by side where they fit, else hex above text; `stacked`: always above. */
  readonly arrangement: 'auto' | 'stacked';
}

export interface LayoutInput {
  /** The workspace's pane area (the window's width; the height below toolbar and banners). */
  readonly width: number;
  /** The hex view's own width (offset, 16 hex cells, caret column, scrollbar). */
  readonly hexWidth: number;
  /** Raw bytes are shown (a grant): the hex view needs its width; else it is a strip above the text. */
  readonly granted: boolean;
  /** The main tab shows hex and text (else Compare or Merged fill the main area). */
  readonly bytesTab: boolean;
  readonly prefs: LayoutPrefs;
}

export type Arrangement = 'columns' | 'stacked' | 'strip' | 'single';

export interface Layout {
  /**
   * `columns`: hex | text side by side; `stacked`: hex above text; `strip`: raw bytes locked, a
   * strip above the text; `single`: one view (Compare, Merged) fills the main area.
   */
  readonly arrangement: Arrangement;
  /** Width of the side panel, or of its rail when folded. */
  readonly sideWidth: number;
  readonly sideCollapsed: boolean;
  /** Folded because nothing else fits (the user's choice was open). */
  readonly sideForced: boolean;
  /** The range the side splitter moves in (min = max when it cannot move). */
  readonly sideMin: number;
  readonly sideMax: number;
  readonly mapWidth: number;
  /** Stacked only: the hex view's share of the height (clamped). */
  readonly hexShare: number;
  /** Stacked only: width beside the hex view and minimap that the hex view's caret column may take. */
  readonly hexExtra: number;
}

/** Splitter thickness. */
export const SPLITTER_PX = 6;
/** Width of the folded side panel (a column of tab buttons). */
export const RAIL_PX = 34;
export const SIDE_MIN_PX = 280;
export const SIDE_DEFAULT_PX = 340;
/** The minimap, and its width when space is short. */
export const MAP_PX = 46;
export const MAP_NARROW_PX = 24;
/** Stacked: neither the hex nor the text gets less than this share. */
export const HEX_SHARE_MIN = 0.2;
export const HEX_SHARE_MAX = 0.8;

export const DEFAULT_PREFS: LayoutPrefs = { sideWidth: SIDE_DEFAULT_PX, sideCollapsed: false, hexShare: 0.5, arrangement: 'auto' };

/** The narrowest the text may be in a window `width` wide: a third, plus room for borders. */
export function textMinWidth(width: number): number {
  return Math.ceil(width / 3) + 4;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

/** The layout for `input` (see the module comment for the rules). */
export function computeLayout(input: LayoutInput): Layout {
  const W = Math.max(0, Math.floor(input.width));
  const p = input.prefs;
  const textMin = textMinWidth(W);
  const hexShare = clamp(Number.isFinite(p.hexShare) ? p.hexShare : 0.5, HEX_SHARE_MIN, HEX_SHARE_MAX);
  // The widest the side may be with the text still at its minimum beside it (and never more than
  // 45% of the window: the panel is secondary).
  const extra = (arrangement: Arrangement, side: number, map: number) =>
    arrangement === 'stacked' ? Math.max(0, W - side - SPLITTER_PX - Math.ceil(input.hexWidth) - map) : 0;
  const sideCap = (besides: number) => Math.floor(Math.min(W * 0.45, W - SPLITTER_PX - besides - textMin));
  const folded = (arrangement: Arrangement, mapWidth: number, forced: boolean): Layout => ({
    arrangement, sideWidth: RAIL_PX, sideCollapsed: true, sideForced: forced && !p.sideCollapsed, sideMin: SIDE_MIN_PX, sideMax: SIDE_MIN_PX, mapWidth, hexShare,
    hexExtra: extra(arrangement, RAIL_PX, mapWidth),
  });
  const open = (arrangement: Arrangement, mapWidth: number, max: number): Layout => {
    const sideMax = Math.max(SIDE_MIN_PX, max);
    const sideWidth = clamp(Math.round(p.sideWidth), SIDE_MIN_PX, sideMax);
    return { arrangement, sideWidth, sideCollapsed: false, sideForced: false, sideMin: SIDE_MIN_PX, sideMax, mapWidth, hexShare, hexExtra: extra(arrangement, sideWidth, mapWidth) };
  };

  if (!input.bytesTab || !input.granted) {
    const arrangement: Arrangement = input.bytesTab ? 'strip' : 'single';
    const besides = input.bytesTab ? MAP_PX : 0;
    const max = sideCap(besides);
    if (p.sideCollapsed) return folded(arrangement, MAP_PX, false);
    if (max < SIDE_MIN_PX) return folded(arrangement, MAP_PX, true);
    return open(arrangement, MAP_PX, max);
  }

  const hex = Math.ceil(input.hexWidth);
  // Side by side: hex, minimap and at least a third of the window for the text.
  const columnsMax = sideCap(hex + MAP_PX);
  const columnsFolded = W - RAIL_PX - SPLITTER_PX - hex - MAP_PX >= textMin;
  if (p.arrangement === 'auto') {
    if (p.sideCollapsed && columnsFolded) return folded('columns', MAP_PX, false);
    if (!p.sideCollapsed && columnsMax >= SIDE_MIN_PX) return open('columns', MAP_PX, columnsMax);
  }
  // Hex above text: the text has the whole main width; hex and minimap must fit across it.
  const stackedMax = (map: number) => Math.floor(Math.min(W * 0.45, W - SPLITTER_PX - hex - map));
  if (p.sideCollapsed) return folded('stacked', W - RAIL_PX - SPLITTER_PX - hex >= MAP_PX ? MAP_PX : MAP_NARROW_PX, false);
  if (stackedMax(MAP_PX) >= SIDE_MIN_PX) return open('stacked', MAP_PX, stackedMax(MAP_PX));
  if (stackedMax(MAP_NARROW_PX) >= SIDE_MIN_PX) return open('stacked', MAP_NARROW_PX, stackedMax(MAP_NARROW_PX));
  return folded('stacked', W - RAIL_PX - SPLITTER_PX - hex >= MAP_PX ? MAP_PX : MAP_NARROW_PX, true);
}
