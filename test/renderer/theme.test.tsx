// @vitest-environment happy-dom
// Themes: the toggle sets data-theme on <html>, the element every view is under and the one the
// style sheet's theme blocks select; every surface takes its colours from those variables; class
// colours stay legible on their tints in both themes.
import { act, screen } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useView } from '../../renderer/src/stores';
import { grantRaw, openSample, startApp, stopApp } from './setup';

const CSS = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../renderer/src/styles.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');

afterEach(stopApp);

/** Top-level rules of the sheet: selector text and declarations. */
function rules(css: string): { selector: string; body: string }[] {
  return Array.from(css.matchAll(/([^{}]+)\{([^{}]*)\}/g), (m) => ({ selector: m[1].trim(), body: m[2] }));
}

/** The custom properties a theme block defines. */
function themeVars(theme: 'dark' | 'light'): Record<string, string> {
  const rule = rules(CSS).find((r) => r.selector.split(',').map((s) => s.trim()).includes(`[data-theme='${theme}']`));
  if (!rule) throw new Error(`no [data-theme='${theme}'] block`);
  return Object.fromEntries(Array.from(rule.body.matchAll(/--([\w-]+):\s*([^;]+);/g), (m) => [m[1], m[2].trim()]));
}

const rgb = (h: string): number[] => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const lum = (c: number[]): number => {
  const l = c.map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
};
const contrast = (a: number[], b: number[]): number => {
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
/** color-mix(in srgb, a t, b) without alpha. */
const mix = (a: number[], b: number[], t: number): number[] => a.map((v, i) => v * t + b[i] * (1 - t));

describe('theme', () => {
  it('the toggle sets data-theme on <html>, which every view is under, and nothing nests another theme', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    await screen.findAllByTestId('hex-row');
    useView.setState({ theme: 'light' });
    await act(async () => undefined);
    expect(document.documentElement.getAttribute('data-theme')).toBe('light');

    await act(async () => screen.getByRole('button', { name: 'Switch to dark theme' }).click());
    expect(useView.getState().theme).toBe('dark');
    expect(document.documentElement.getAttribute('data-theme')).toBe('dark');
    for (const id of ['workspace', 'hex-view', 'hex-grid', 'text-view', 'report-panel', 'inspector', 'minimap', 'grant-banner', 'hex-scrollbar', 'text-scrollbar']) {
      const el = screen.getByTestId(id);
      expect(el.closest('[data-theme]'), id).toBe(document.documentElement);
    }
    // The only element carrying a theme is <html>: no view re-scopes the variables.
    expect(Array.from(document.querySelectorAll('[data-theme]'))).toEqual([document.documentElement]);

    await act(async () => screen.getByRole('button', { name: 'Switch to light theme' }).click());
    expect(document.documentElement.getAttribute('data-theme')).toBe('light');
  });

  it('the minimap redraws after the attribute changed, so it reads the new theme\'s colours', async () => {
    const ctx = { clearRect() {}, fillRect() {}, globalAlpha: 1, fillStyle: '' };
    const getContext = vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(() => ctx as unknown as CanvasRenderingContext2D);
    const seen: (string | undefined)[] = [];
    const real = window.getComputedStyle.bind(window);
    const gcs = vi.spyOn(window, 'getComputedStyle').mockImplementation((el: Element, pseudo?: string | null) => {
      if (el instanceof HTMLCanvasElement) seen.push(document.documentElement.dataset.theme);
      return real(el, pseudo);
    });
    try {
      await startApp();
      useView.setState({ theme: 'light' });
      await openSample();
      await screen.findByTestId('minimap');
      seen.length = 0;
      await act(async () => screen.getByRole('button', { name: 'Switch to dark theme' }).click());
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['dark']));
    } finally {
      getContext.mockRestore();
      gcs.mockRestore();
    }
  });

  it('the style sheet selects the themes on the attribute alone (so <html> carries them) and both define the same roles', () => {
    const theme = rules(CSS).filter((r) => r.selector.includes('data-theme'));
    for (const r of theme) {
      for (const s of r.selector.split(',').map((x) => x.trim())) expect(s, 'a theme selector is not scoped under a view').toMatch(/^(:root|\[data-theme='(dark|light)'\])$/);
    }
    const dark = Object.keys(themeVars('dark')).sort();
    const light = Object.keys(themeVars('light')).sort();
    expect(light).toEqual(dark);
  });

  it('every surface outside the theme blocks takes its colours from the variables', () => {
    const literal = /#[0-9a-f]{3,8}\b|\brgba?\(|\bhsla?\(|\b(white|black)\b/i;
    const colourProps = /(?:^|[\s;])(color|background(?:-color)?|border(?:-[a-z]+)?(?:-color)?|outline(?:-color)?|box-shadow|fill|stroke|text-decoration)\s*:\s*([^;]+)/g;
    const offenders: string[] = [];
    for (const r of rules(CSS)) {
      if (r.selector.includes('data-theme')) continue;
      for (const m of r.body.matchAll(colourProps)) if (literal.test(m[2])) offenders.push(`${r.selector} { ${m[1]}: ${m[2]} }`);
    }
    expect(offenders).toEqual([]);
  });

  it('class colours stay legible (4.5:1) on their tinted cells, on chips and on search hits, in both themes', () => {
    const failures: string[] = [];
    for (const name of ['dark', 'light'] as const) {
      const v = themeVars(name);
      const bg = rgb(v.bg);
      const tint = Number(v.tint);
      const hitBg = rgb(v['hit-bg']);
      for (let c = 0; c < 12; c++) {
        const k = rgb(v[`c${c}`]);
        const checks: [string, number][] = [
          ['cell', contrast(k, mix(k, bg, tint))],
          ['chip', contrast(k, mix(k, bg, 0.2))],
          ['hit', contrast(k, hitBg)],
        ];
        for (const [what, ratio] of checks) if (ratio < 4.5) failures.push(`${name} --c${c} on ${what}: ${ratio.toFixed(2)}`);
      }
      for (const [fg, on] of [['fg', 'bg'], ['fg2', 'bg2'], ['fg3', 'bg'], ['fg3', 'bg2'], ['sel-fg', 'sel'], ['on-accent', 'accent'], ['fg', 'hit-bg']]) {
        const ratio = contrast(rgb(v[fg]), rgb(v[on]));
        if (ratio < 4.5) failures.push(`${name} --${fg} on --${on}: ${ratio.toFixed(2)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
