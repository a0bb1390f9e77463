import { create } from 'zustand';
import { CARET_COLUMNS } from '../lib/caret-fit';
import { DEFAULT_PREFS, HEX_SHARE_MAX, HEX_SHARE_MIN, SIDE_MIN_PX, type LayoutPrefs } from '../lib/layout';

/**
 * How removed spans are drawn in the text: `full` every span a chip; `balanced` colour (SGR) as a
 * thin mark, the rest as chips; `minimal` only the dangerous categories as chips (screen control,
 * invalid UTF-8 and colour as marks). Categories: shared/parser/danger.ts.
 */
export type ChipDensity = 'full' | 'balanced' | 'minimal';

/** What the user chose about the workspace's shape: remembered per user in the renderer's storage. */
export interface ViewPrefs extends LayoutPrefs {
  readonly chipDensity: ChipDensity;
  /** The byte inspector under the side panel is open. */
  readonly inspectorOpen: boolean;
}

export interface LayoutState {
  prefs: ViewPrefs;
  /** The hex view's measured width (its rows are as wide as their content); an estimate until measured. */
  hexWidth: number;
  /** Width of one column (1ch) of the hex view's font, measured. */
  chPx: number;
  /** Columns of the caret column: CARET_COLUMNS, more where the stacked layout leaves room. */
  caretColumns: number;
}

/** localStorage key of the preferences (the renderer's own storage: no main-side setting is involved). */
export const PREFS_KEY = 'airlock.viewer.prefs.v1';
/** The hex view's width before it was measured (12.5px DejaVu Sans Mono). */
export const HEX_WIDTH_ESTIMATE = 700;

export const DEFAULT_VIEW_PREFS: ViewPrefs = { ...DEFAULT_PREFS, chipDensity: 'balanced', inspectorOpen: true };

function storage(): Storage | null {
  try {
    return typeof window !== 'undefined' && window.localStorage ? window.localStorage : null;
  } catch {
    return null; // storage disabled: the choices last for this session only
  }
}

/** Stored preferences, each field checked (a bad or foreign value falls back to its default). */
export function parsePrefs(text: string | null): ViewPrefs {
  let raw: Record<string, unknown> = {};
  try {
    const v: unknown = text ? JSON.parse(text) : {};
    if (v && typeof v === 'object' && !Array.isArray(v)) raw = v as Record<string, unknown>;
  } catch {
    raw = {};
  }
  const num = (k: keyof ViewPrefs, lo: number, hi: number): number => {
    const v = raw[k];
    return typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : (DEFAULT_VIEW_PREFS[k] as number);
  };
  const bool = (k: keyof ViewPrefs): boolean => (typeof raw[k] === 'boolean' ? (raw[k] as boolean) : (DEFAULT_VIEW_PREFS[k] as boolean));
  const oneOf = <T extends string>(k: keyof ViewPrefs, values: readonly T[]): T => (values.includes(raw[k] as T) ? (raw[k] as T) : (DEFAULT_VIEW_PREFS[k] as T));
  return {
    sideWidth: num('sideWidth', SIDE_MIN_PX, 4000),
    sideCollapsed: bool('sideCollapsed'),
    hexShare: num('hexShare', HEX_SHARE_MIN, HEX_SHARE_MAX),
    arrangement: oneOf('arrangement', ['auto', 'stacked'] as const),
    chipDensity: oneOf('chipDensity', ['full', 'balanced', 'minimal'] as const),
    inspectorOpen: bool('inspectorOpen'),
  };
}

export const initialLayout = (): LayoutState => ({ prefs: parsePrefs(storage()?.getItem(PREFS_KEY) ?? null), hexWidth: HEX_WIDTH_ESTIMATE, chPx: 7.5, caretColumns: CARET_COLUMNS });

export const useLayout = create<LayoutState>(() => initialLayout());

/** Changes preferences and remembers them. */
export function setPrefs(change: Partial<ViewPrefs>): void {
  const prefs = { ...useLayout.getState().prefs, ...change };
  useLayout.setState({ prefs });
  try {
    storage()?.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // full or disabled storage: the choice holds until the window closes
  }
}

/** Back to the defaults (and forgets the stored choices). */
export function resetPrefs(): void {
  try {
    storage()?.removeItem(PREFS_KEY);
  } catch {
    // nothing stored
  }
  useLayout.setState({ prefs: { ...DEFAULT_VIEW_PREFS }, hexWidth: HEX_WIDTH_ESTIMATE, chPx: 7.5, caretColumns: CARET_COLUMNS }, true);
}
