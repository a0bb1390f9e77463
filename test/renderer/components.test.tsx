// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setBridge } from '../../renderer/src/bridge';
import { Scrollbar } from '../../renderer/src/components/Scrollbar';
import { copyPlainText, gotoHit, moveCursor, runSearch, selectRange, addBookmark } from '../../renderer/src/actions';
import { bucketAt } from '../../renderer/src/views/Minimap';
import { Chip, LinePieces } from '../../renderer/src/views/TextView';
import { resetPrefs, setPrefs, useBookmarks, useSearch, useSelection, useView } from '../../renderer/src/stores';
import type { SpanInfo, TextLine } from '../../shared/bridge/types';
import { NOT_INERT, grantRaw, openSample, startApp } from './setup';
import { session } from '../../renderer/src/session';

afterEach(() => {
  cleanup();
  setBridge(null);
  resetPrefs();
});

const rows4GiB = 2 ** 28;

describe('Scrollbar', () => {
  it('maps a click at the bottom of the track to the last row of a 4 GiB artifact', () => {
    const onTop = vi.fn();
    render(<Scrollbar totalRows={rows4GiB} visibleRows={40} top={0} onTop={onTop} label="Hex rows position" trackPx={800} testId="sb" />);
    const bar = screen.getByTestId('sb');
    expect(bar.getAttribute('aria-valuemax')).toBe(String(rows4GiB - 40));
    fireEvent.pointerDown(bar, { clientY: 800 });
    expect(onTop).toHaveBeenLastCalledWith(rows4GiB - 40);
    fireEvent.pointerDown(bar, { clientY: 400 }); // thumb (24 px) centred there: its top at 388 of 776
    const mid = onTop.mock.calls.at(-1)![0] as number;
    expect(Math.abs(mid - rows4GiB / 2)).toBeLessThan(rows4GiB / 700);
  });
  it('drags the thumb by row numbers, not pixels of content', () => {
    const onTop = vi.fn();
    render(<Scrollbar totalRows={rows4GiB} visibleRows={40} top={0} onTop={onTop} label="x" trackPx={800} testId="sb" />);
    const bar = screen.getByTestId('sb');
    fireEvent.pointerDown(bar, { clientY: 5 });
    fireEvent.pointerMove(bar, { clientY: 5 + 776 });
    expect(onTop).toHaveBeenLastCalledWith(rows4GiB - 40);
    const thumb = bar.querySelector('.scrollbar-thumb') as HTMLElement;
    expect(thumb.style.height).toBe('24px');
  });
});

describe('Minimap', () => {
  it('maps a y position to its bucket', () => {
    expect(bucketAt(0, 400, 1024)).toBe(0);
    expect(bucketAt(399.9, 400, 1024)).toBe(1023);
    expect(bucketAt(200, 400, 1024)).toBe(512);
    expect(bucketAt(900, 400, 1024)).toBe(1023);
  });
});

const span = (o: Partial<SpanInfo>): SpanInfo => ({ index: 3, offset: 40, length: 44, cls: 4, meaning: 'OSC 52 clipboard access', flags: 0, terminator: 'BEL', ...o });

describe('chips and pieces', () => {
  it('a chip is an element with an icon, a class label and a full accessible name; text that imitates one stays text', () => {
    const line: TextLine = {
      line: 0, textOffset: 0, rawStart: 0, rawEnd: 100, continued: false,
      pieces: [
        { t: 'text', text: '[OSC 52 clipboard]', raw: 0, rawLength: 18, direct: true },
        { t: 'chip', span: span({}) },
        { t: 'synthetic', text: '\n', raw: 84, rawLength: 1 },
      ],
    };
    render(<div><LinePieces line={line} range={[40, 84]} cursor={40} /></div>);
    const chips = screen.getAllByTestId('chip');
    expect(chips).toHaveLength(1);
    expect(chips[0].getAttribute('aria-label')).toBe('Removed: OSC 52 clipboard access, 44 bytes, ended by BEL, at offset 0x00000028');
    expect(chips[0].className).toContain('sel');
    // the imitation is a plain text span with no chip parts
    const fake = screen.getByText('[OSC 52 clipboard]');
    expect(fake.className).toBe('tp');
    expect(fake.querySelector('.chip-icon')).toBeNull();
  });
  it('shows how many spans were elided after a chip, drawn as a chip or as a mark', () => {
    act(() => setPrefs({ chipDensity: 'full' }));
    const piece = { t: 'chip' as const, span: span({ cls: 3, meaning: 'SGR select graphic rendition', length: 5 }), more: 1200 };
    const { unmount } = render(<Chip piece={piece} selected={false} index={0} line={0} />);
    expect(screen.getByTestId('chip').textContent).toBe('CSISGR+1200');
    unmount();
    // Colour drawn thin (the default density): no label text, the count stays, the name says all.
    act(() => setPrefs({ chipDensity: 'balanced' }));
    render(<Chip piece={piece} selected={false} index={0} line={0} />);
    const mark = screen.getByTestId('chip');
    expect(mark.dataset.drawn).toBe('mark');
    expect(mark.textContent).toBe('+1200');
    expect(mark.getAttribute('aria-label')).toMatch(/^Removed: CSI SGR select graphic rendition, 5 bytes.*, and 1200 more$/);
  });

  it('draws a span as a chip or a mark by its danger category and the density chosen', () => {
    const cases: Array<[number, string, boolean, boolean, boolean]> = [
      // cls, meaning, chip at full, at balanced, at minimal
      [4, 'OSC 52 clipboard access', true, true, true],
      [4, 'OSC 8 hyperlink (open)', true, true, true],
      [3, 'SGR select graphic rendition (conceal: hidden text)', true, true, true],
      [10, 'tag character (ASCII smuggling)', true, true, true],
      [3, 'CUU cursor up', true, true, false],
      [0, 'CR carriage return', true, true, false],
      [3, 'SGR select graphic rendition', true, false, false],
    ];
    for (const [cls, meaning, full, balanced, minimal] of cases) {
      for (const [density, want] of [['full', full], ['balanced', balanced], ['minimal', minimal]] as const) {
        act(() => setPrefs({ chipDensity: density }));
        const { unmount } = render(<Chip piece={{ t: 'chip', span: span({ cls, meaning }) }} selected={false} index={0} line={0} />);
        expect(screen.getByTestId('chip').dataset.drawn, `${meaning} at ${density}`).toBe(want ? 'chip' : 'mark');
        unmount();
      }
    }
  });
});

describe('linking hex selection to text', () => {
  it('lights up the text pieces whose bytes are selected', async () => {
    await startApp();
    await openSample();
    act(() => selectRange(0, 5)); // "$ mak"
    await waitFor(() => expect(document.querySelector('[data-testid=text-line][data-line="0"] .tp.sel')).not.toBeNull());
    expect(useSelection.getState().textLine).toBe(0);
  });
  it('a cursor move re-renders only the text rows whose highlighting changes, and moves the highlight', async () => {
    await startApp();
    await openSample();
    act(() => selectRange(0, 1));
    await waitFor(() => expect(document.querySelector('[data-testid=text-line][data-line="0"] .tp.sel')).not.toBeNull());
    const text = session()!.text;
    const line2 = text.line(2)!;
    const piece = line2.pieces.find((p) => p.t === 'text' && p.direct && p.rawLength > 2)!;
    expect(piece).toBeDefined();
    const visibleRows = document.querySelectorAll('[data-testid=text-line]').length;
    expect(visibleRows).toBeGreaterThan(10);
    const spy = vi.spyOn(text, 'line');
    try {
      // Same piece, another byte: no row's highlighting changes, no row renders.
      act(() => selectRange(1, 2));
      const sameLine = spy.mock.calls.map((c) => c[0]);
      // To line 2: line 0 loses its highlight, line 2 gains it; no other row renders.
      spy.mockClear();
      const at = (piece as { raw: number }).raw;
      act(() => selectRange(at, at + 1));
      const rendered = new Set(spy.mock.calls.map((c) => c[0]));
      expect(sameLine.filter((r) => r !== 0)).toEqual([]);
      expect([...rendered].every((r) => r === 0 || r === 2), `rendered rows ${[...rendered].join(',')}`).toBe(true);
    } finally {
      spy.mockRestore();
    }
    await waitFor(() => expect(document.querySelector('[data-testid=text-line][data-line="2"] .tp.sel')).not.toBeNull());
    expect(document.querySelector('[data-testid=text-line][data-line="0"] .sel')).toBeNull();
    expect(document.querySelector('[data-testid=text-line][data-line="2"]')!.classList.contains('linked')).toBe(true);
    expect(document.querySelector('[data-testid=text-line][data-line="0"]')!.classList.contains('linked')).toBe(false);
  });
});

describe('search, bookmarks', () => {
  it('counts text hits and walks them; raw search needs the grant', async () => {
    const fake = await startApp();
    await openSample();
    act(() => useSearch.setState({ query: 'compiling', mode: 'text' }));
    await act(() => runSearch());
    expect(useSearch.getState().total).toBe(2);
    const first = useSelection.getState().cursor;
    act(() => gotoHit(1));
    expect(useSelection.getState().cursor).toBeGreaterThan(first);
    act(() => useSearch.setState({ query: '1b 5d ?? 3b', mode: 'raw-hex' }));
    await act(() => runSearch());
    expect(useSearch.getState().error).toMatch(/needs raw access/);
    await grantRaw();
    await act(() => runSearch());
    expect(useSearch.getState().total).toBeGreaterThan(3);
    expect(fake.control.calls).toContain('searchRaw');
  });
  it('saves a bookmark with a note at the selection', async () => {
    await startApp();
    await openSample();
    act(() => moveCursor(12));
    await act(() => addBookmark('title says "safe to deploy"'));
    expect(useBookmarks.getState().list).toHaveLength(1);
    expect(useBookmarks.getState().list[0]).toMatchObject({ offset: 12, length: 1, note: 'title says "safe to deploy"' });
    useView.setState({ sideTab: 'bookmarks' });
    await screen.findByTestId('bookmark');
  });
  it('refuses to copy text that is not inert', async () => {
    const fake = await startApp();
    await act(() => copyPlainText('ok\u001b]52;c;x\u0007'));
    expect(fake.control.copies).toHaveLength(0);
    expect(useView.getState().notice).toMatch(/refused/);
    expect('plain').not.toMatch(NOT_INERT);
  });
});

describe('index progress', () => {
  it('shows progress while main indexes, then the text', async () => {
    const fake = await startApp();
    let polls = 0;
    const done = await fake.getIndexStatus((await fake.listRecords())[0].artifacts[0].ref);
    fake.startIndex = async () => ({ ...done, state: 'running', bytesDone: done.totalBytes / 2, cached: false });
    fake.getIndexStatus = async () => (++polls < 3 ? { ...done, state: 'running', bytesDone: done.totalBytes / 2, cached: false } : done);
    const { useArtifact } = await import('../../renderer/src/stores');
    const { openArtifact } = await import('../../renderer/src/actions');
    const record = useArtifact.getState().records[0];
    const opening = openArtifact(record, record.artifacts[0]);
    await screen.findByRole('progressbar', { name: 'Indexing spans' });
    await act(() => opening);
    expect(screen.queryByRole('progressbar')).toBeNull();
    await screen.findAllByTestId('chip');
  });
  it('offers to index again when indexing failed, and still shows the report', async () => {
    const fake = await startApp();
    const done = await fake.getIndexStatus((await fake.listRecords())[0].artifacts[0].ref);
    fake.startIndex = async () => ({ ...done, state: 'failed', error: 'disk full' });
    const { useArtifact } = await import('../../renderer/src/stores');
    const { openArtifact } = await import('../../renderer/src/actions');
    const record = useArtifact.getState().records[0];
    await act(() => openArtifact(record, record.artifacts[0]));
    expect((await screen.findByRole('alert')).textContent).toMatch('Span index failed: disk full');
    expect(screen.getByRole('button', { name: 'Index again' })).toBeTruthy();
    expect(screen.getByTestId('report-panel').textContent).toMatch('spans removed');
  });
});

describe('keyboard in the text view', () => {
  it('walks the pieces of the linked line with the arrow keys, selecting their bytes', async () => {
    await startApp();
    await openSample();
    const grid = await screen.findByTestId('text-grid');
    await screen.findAllByTestId('chip');
    act(() => useSelection.setState({ textLine: 1, textPiece: null }));
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    const first = useSelection.getState();
    expect(first.textLine).toBe(1);
    expect(first.textPiece).toBe(0);
    expect(first.cursor).toBe(12); // the OSC 0 title chip
    fireEvent.keyDown(grid, { key: 'ArrowRight' });
    expect(useSelection.getState().textPiece).toBe(1);
    fireEvent.keyDown(grid, { key: 'ArrowLeft' });
    expect(useSelection.getState().cursor).toBe(12);
  });
});

describe('search hits in the text view', () => {
  it('marks every visible piece holding a hit, not only the current one', async () => {
    await startApp();
    await openSample();
    await screen.findAllByTestId('chip');
    act(() => useSearch.setState({ query: 'downloading', mode: 'text' }));
    await act(() => runSearch());
    expect(useSearch.getState().total).toBe(3);
    await waitFor(() => expect(document.querySelectorAll('[data-testid=text-view] .tp.hit').length).toBe(3));
  });
});
