// @vitest-environment happy-dom
// Copy Text never writes an empty clipboard (nor audits one): it copies the selection's sanitized
// text or refuses and says why. Export hex dump offers the selection and the whole artifact and
// says which. Keyboard: Up/Down move a line cursor in the text view; Ctrl+C copies that line.
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { copySelection, exportHexDump, selectRange } from '../../renderer/src/actions';
import { selectedText } from '../../renderer/src/lib/formats';
import { bridge } from '../../renderer/src/bridge';
import { useArtifact, useSelection, useView } from '../../renderer/src/stores';
import type { SpanInfo, TextLine } from '../../shared/bridge/types';
import { NOT_INERT, grantRaw, openSample, startApp, stopApp } from './setup';

afterEach(stopApp);

async function osc52(): Promise<SpanInfo> {
  const spans = await bridge().getSpans(useArtifact.getState().artifact!.ref, 0, 10_000);
  return spans.find((s) => s.meaning.startsWith('OSC 52'))!;
}

describe('Copy Text', () => {
  it('refuses a selection that is only a removed span: no clipboard write, no audit entry, a visible reason', async () => {
    const fake = await startApp();
    await openSample();
    const span = await osc52();
    act(() => selectRange(span.offset, span.offset + span.length, false));
    const audited = (await bridge().listAudit(1000)).length;
    await act(() => copySelection('text'));
    expect(fake.control.copies).toHaveLength(0);
    expect((await bridge().listAudit(1000)).length).toBe(audited);
    expect(useView.getState().notice).toBe('Nothing copied: the selection is a removed span (OSC 52 clipboard access), which has no sanitized text');
  });

  it('copies exactly the selected characters of kept text, not the whole piece', async () => {
    const fake = await startApp();
    await openSample();
    // "$ make test\n": bytes 2..6 are "make".
    act(() => selectRange(2, 6, false));
    await act(() => copySelection('text'));
    expect(fake.control.copies).toEqual([{ kind: 'text', text: 'make' }]);
  });

  it('Up/Down in the text view select a line; Ctrl+C then copies that line (never an empty string)', async () => {
    const fake = await startApp();
    await openSample();
    const grid = await screen.findByTestId('text-grid');
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    await waitFor(() => expect(useSelection.getState().textLine).toBe(0));
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    await waitFor(() => expect(useSelection.getState().textLine).toBe(1));
    fireEvent.copy(grid);
    await waitFor(() => expect(fake.control.copies).toHaveLength(1));
    const copied = fake.control.copies[0];
    expect(copied.kind).toBe('text');
    expect(copied.text.length).toBeGreaterThan(0);
    expect(copied.text).not.toMatch(NOT_INERT);
    // Line 1 is the title's line: its text, without the chip's label.
    const line1 = (await bridge().getTextLines(useArtifact.getState().artifact!.ref, 1, 1)).lines[0];
    expect(copied.text).toBe(selectedText([line1], line1.rawStart, line1.rawEnd).text);
    expect(copied.text).not.toMatch(/OSC|title/);
  });

  it('main refuses an empty copy too (the contract: at least one character)', async () => {
    const fake = await startApp();
    await expect(bridge().copyText('text', '')).rejects.toThrow(/\[bad-request\]/);
    expect(fake.control.copies).toHaveLength(0);
  });
});

describe('Export hex dump', () => {
  it('exports the selection or the whole artifact, and says which', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    act(() => selectRange(16, 48, false));
    await act(() => exportHexDump('selection'));
    expect(fake.control.exports.at(-1)).toMatchObject({ kind: 'hex-dump', scope: 'selection', range: [16, 48] });
    expect(useView.getState().notice).toMatch(/^Exported a hex dump of the selection \(32 bytes\) to /);
    await act(() => exportHexDump('artifact'));
    const size = useArtifact.getState().artifact!.size;
    expect(fake.control.exports.at(-1)).toMatchObject({ kind: 'hex-dump', scope: 'artifact', range: [0, size] });
    expect(useView.getState().notice).toMatch(new RegExp(`^Exported a hex dump of the whole artifact \\(${size.toLocaleString('en-US')} bytes\\)`));
  });

  it('the toolbar menu offers both, naming the selection and the artifact size', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    act(() => selectRange(0, 16, false));
    fireEvent.click(screen.getByRole('button', { name: /Export hex dump/ }));
    expect(screen.getByRole('menuitem', { name: 'Hex dump of the selection' }).textContent).toBe('Selection — 0x0–0xf, 16 bytes');
    const whole = screen.getByRole('menuitem', { name: 'Hex dump of the whole artifact' });
    expect(whole.textContent).toMatch(/^Whole artifact — [\d,]+ bytes$/);
    fireEvent.click(whole);
    await waitFor(() => expect(fake.control.exports.at(-1)?.scope).toBe('artifact'));
  });

  it('needs raw access', async () => {
    const fake = await startApp();
    await openSample();
    await act(() => exportHexDump('artifact'));
    expect(fake.control.exports).toHaveLength(0);
    expect(useView.getState().notice).toBe('Exporting a hex dump needs raw access');
  });
});

describe('selectedText', () => {
  const line = (n: number, pieces: TextLine['pieces'], continued = false): TextLine => ({ line: n, textOffset: 0, rawStart: 0, rawEnd: 0, continued, pieces });
  const chip = (offset: number, length: number, meaning = 'OSC 52 clipboard access'): TextLine['pieces'][number] => ({ t: 'chip', span: { index: 0, offset, length, cls: 4, meaning, flags: 0, code: 52, terminator: 'BEL' } });

  it('cuts direct text at byte offsets, multi-byte characters whole', () => {
    // "é" is 2 bytes: raw 0..1 'a', 1..3 'é', 3..4 'b'.
    const l = line(0, [{ t: 'text', text: 'aéb\n', raw: 0, rawLength: 5, direct: true }]);
    expect(selectedText([l], 1, 2).text).toBe('é');
    expect(selectedText([l], 0, 5).text).toBe('aéb');
    expect(selectedText([l], 3, 4).text).toBe('b');
  });

  it('joins lines with one LF, a continued line without, and drops chips', () => {
    const lines = [
      line(0, [{ t: 'text', text: 'one\n', raw: 0, rawLength: 4, direct: true }]),
      line(1, [chip(4, 10), { t: 'text', text: 'two', raw: 14, rawLength: 3, direct: true }]),
      line(2, [{ t: 'text', text: '-more\n', raw: 17, rawLength: 6, direct: true }], true),
    ];
    const got = selectedText(lines, 0, 23);
    expect(got.text).toBe('one\ntwo-more');
    expect(got.removed.map((s) => s.offset)).toEqual([4]);
  });

  it('is empty for a selection inside a removed span, and names the span', () => {
    const got = selectedText([line(0, [chip(4, 10)])], 5, 9);
    expect(got.text).toBe('');
    expect(got.removed).toHaveLength(1);
  });
});
