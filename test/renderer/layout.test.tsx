// @vitest-environment happy-dom
// The pane layout (lib/layout.ts): for every window from Electron's minimum width up, whatever
// the user dragged, the panes fit side by side across the window and the sanitized text keeps a
// third of it (property). The splitters move with the keyboard and remember the size; stored
// preferences are checked field by field.
import { act, fireEvent, screen } from '@testing-library/react';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { computeLayout, MAP_NARROW_PX, RAIL_PX, SIDE_MIN_PX, SPLITTER_PX, textMinWidth, type LayoutInput } from '../../renderer/src/lib/layout';
import { splitterKey } from '../../renderer/src/components/Splitter';
import { DEFAULT_VIEW_PREFS, PREFS_KEY, parsePrefs } from '../../renderer/src/stores/layout';
import { useLayout } from '../../renderer/src/stores';
import { grantRaw, openSample, startApp, stopApp } from './setup';

afterEach(stopApp);

/** Widths of the panes across the window for a layout (what the CSS grid makes of it). */
function widths(input: LayoutInput) {
  const l = computeLayout(input);
  const side = l.sideWidth;
  const main = input.width - side - SPLITTER_PX;
  const hex = Math.ceil(input.hexWidth);
  if (l.arrangement === 'columns') return { l, main, side, hex, text: main - hex - l.mapWidth };
  if (l.arrangement === 'stacked') return { l, main, side, hex, text: main };
  if (l.arrangement === 'strip') return { l, main, side, hex: main, text: main - l.mapWidth };
  return { l, main, side, hex: 0, text: main };
}

const input = fc.record({
  width: fc.integer({ min: 800, max: 4000 }),
  hexWidth: fc.integer({ min: 600, max: 730 }),
  granted: fc.boolean(),
  bytesTab: fc.boolean(),
  prefs: fc.record({
    sideWidth: fc.integer({ min: -100, max: 5000 }),
    sideCollapsed: fc.boolean(),
    hexShare: fc.double({ min: -1, max: 2, noNaN: true }),
    arrangement: fc.constantFrom('auto' as const, 'stacked' as const),
  }),
});

describe('computeLayout', () => {
  it('fits every window: nothing past the right edge, hex whole, text at least a third (property)', () => {
    fc.assert(fc.property(input, (i) => {
      const { l, main, side, hex, text } = widths(i);
      expect(side + SPLITTER_PX + main).toBe(i.width);
      expect(text, `text of ${JSON.stringify(i)} → ${JSON.stringify(l)}`).toBeGreaterThanOrEqual(i.width / 3);
      if (l.arrangement === 'columns') expect(hex + l.mapWidth + text).toBe(main);
      if (l.arrangement === 'stacked') expect(hex + l.mapWidth, `hex and minimap fit across ${JSON.stringify(i)}`).toBeLessThanOrEqual(main);
      if (!l.sideCollapsed) {
        expect(side).toBeGreaterThanOrEqual(SIDE_MIN_PX);
        expect(side).toBeLessThanOrEqual(l.sideMax);
      } else expect(side).toBe(RAIL_PX);
      expect(l.hexShare).toBeGreaterThanOrEqual(0.2);
      expect(l.hexShare).toBeLessThanOrEqual(0.8);
      expect(l.hexExtra).toBeGreaterThanOrEqual(0);
      if (l.arrangement === 'stacked') expect(hex + l.mapWidth + l.hexExtra).toBeLessThanOrEqual(main);
    }), { numRuns: 3000 });
  });

  it('locked raw bytes give the hex room to the text (a strip above it)', () => {
    const l = computeLayout({ width: 1400, hexWidth: 686, granted: false, bytesTab: true, prefs: { ...DEFAULT_VIEW_PREFS } });
    expect(l.arrangement).toBe('strip');
    expect(1400 - l.sideWidth - SPLITTER_PX - l.mapWidth).toBeGreaterThan(1000);
  });

  it('puts hex and text side by side where they fit, else hex above text; the user can ask for above', () => {
    const at = (width: number, arrangement: 'auto' | 'stacked' = 'auto') => computeLayout({ width, hexWidth: 686, granted: true, bytesTab: true, prefs: { ...DEFAULT_VIEW_PREFS, arrangement } });
    expect(at(1920).arrangement).toBe('columns');
    expect(at(1600).arrangement).toBe('columns');
    expect(at(1280).arrangement).toBe('stacked');
    expect(at(1000).arrangement).toBe('stacked');
    expect(at(1920, 'stacked').arrangement).toBe('stacked');
    // Narrow: the minimap narrows before the side panel folds.
    expect(at(1000).mapWidth).toBe(MAP_NARROW_PX);
    expect(at(1000).sideCollapsed).toBe(false);
    expect(textMinWidth(1000)).toBeGreaterThanOrEqual(334);
  });
});

describe('preferences', () => {
  it('keep each valid field and replace each bad one with its default', () => {
    expect(parsePrefs(null)).toEqual(DEFAULT_VIEW_PREFS);
    expect(parsePrefs('not json')).toEqual(DEFAULT_VIEW_PREFS);
    expect(parsePrefs('[1,2]')).toEqual(DEFAULT_VIEW_PREFS);
    expect(parsePrefs(JSON.stringify({ sideWidth: 400, sideCollapsed: true, hexShare: 0.3, arrangement: 'stacked', chipDensity: 'minimal', inspectorOpen: false })))
      .toEqual({ sideWidth: 400, sideCollapsed: true, hexShare: 0.3, arrangement: 'stacked', chipDensity: 'minimal', inspectorOpen: false });
    expect(parsePrefs(JSON.stringify({ sideWidth: 1e9, sideCollapsed: 'yes', hexShare: NaN, arrangement: 'diagonal', chipDensity: '<script>', inspectorOpen: 1 }))).toEqual(DEFAULT_VIEW_PREFS);
  });

  it('splitter keys: arrows by 16 px (Shift 64), Home and End to the ends, clamped', () => {
    const p = { value: 300, min: 280, max: 600, orientation: 'vertical' as const, grows: -1 as const };
    expect(splitterKey('ArrowLeft', false, p)).toBe(316);
    expect(splitterKey('ArrowRight', false, p)).toBe(284);
    expect(splitterKey('ArrowRight', true, p)).toBe(280);
    expect(splitterKey('ArrowLeft', true, p)).toBe(364);
    expect(splitterKey('Home', false, p)).toBe(280);
    expect(splitterKey('End', false, p)).toBe(600);
    expect(splitterKey('ArrowUp', false, p)).toBeNull();
    expect(splitterKey('ArrowDown', false, { ...p, orientation: 'horizontal', grows: 1 })).toBe(316);
  });
});

describe('splitters in the workspace', () => {
  it('widen the side panel from the keyboard, fold it with Enter, and remember both', async () => {
    await startApp();
    await openSample();
    const splitter = screen.getByTestId('side-splitter');
    const before = Number(splitter.getAttribute('aria-valuenow'));
    fireEvent.keyDown(splitter, { key: 'ArrowLeft' });
    expect(useLayout.getState().prefs.sideWidth).toBe(before + 16);
    expect(JSON.parse(localStorage.getItem(PREFS_KEY)!).sideWidth).toBe(before + 16);
    expect(document.querySelector<HTMLElement>('aside.side')!.style.width).toBe(`${before + 16}px`);
    fireEvent.keyDown(splitter, { key: 'Enter' });
    expect(document.querySelector('aside.side.folded')).not.toBeNull();
    expect(JSON.parse(localStorage.getItem(PREFS_KEY)!).sideCollapsed).toBe(true);
    // The rail's tabs unfold the panel on the tab chosen.
    fireEvent.click(screen.getByRole('button', { name: 'Search (unfolds the side panel)' }));
    expect(screen.getByTestId('search-panel')).toBeTruthy();
    expect(useLayout.getState().prefs.sideCollapsed).toBe(false);
  });

  it('stacked: hex above text with a height splitter between them', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    act(() => useLayout.setState((s) => ({ prefs: { ...s.prefs, arrangement: 'stacked' } })));
    expect(document.querySelector('.main-area.arr-stacked')).not.toBeNull();
    expect(screen.getByTestId('hex-splitter').getAttribute('aria-orientation')).toBe('horizontal');
  });
});
