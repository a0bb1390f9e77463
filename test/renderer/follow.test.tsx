// @vitest-environment happy-dom
// The follow view (renderer/src/follow.ts, views/FollowView.tsx) against the fake bridge: a running
// capture listed in the vault browser, its text put together from the pieces main sends (each
// split once), autoscroll that stops when the user scrolls up, an interrupted capture said so, and
// the sealed record opened when the capture ends. The line splitting has its own properties.
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFollow, followText } from '../../renderer/src/follow';
import { appendFollowText, emptyFollowText, MAX_LINE_CHARS, MAX_LINES } from '../../renderer/src/lib/follow-text';
import { useArtifact, useFollow } from '../../renderer/src/stores';
import type { RunningSummary } from '../../shared/bridge/types';
import { startApp, stopApp } from './setup';

const CAPTURE: RunningSummary = {
  id: '20261207T110000Z-1a2b3c4d', startedAt: '2026-12-07T11:00:00.000Z', title: 'make -j8 all', cwd: '/src/app', streams: ['stdout', 'stderr'], state: 'running', textBytes: { stdout: 0, stderr: 0 },
};

afterEach(() => {
  closeFollow();
  stopApp();
});

describe('follow text', () => {
  it('pieces put together give the lines of the whole, whatever the cuts', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\n', ' ') }), { maxLength: 30 }), (pieces) => {
      const t = emptyFollowText();
      for (const p of pieces) appendFollowText(t, p);
      const whole = pieces.join('').split('\n');
      expect([...t.lines, t.tail]).toEqual(whole);
    }));
  });

  it('a line that never ends is cut into display lines (never between the halves of a character), and old lines go past the limit', () => {
    const t = emptyFollowText();
    const long = 'x'.repeat(MAX_LINE_CHARS - 1) + '😀'.repeat(3);
    for (let i = 0; i < long.length; i += 1000) appendFollowText(t, long.slice(i, i + 1000));
    expect(t.lines.length).toBe(1);
    expect(t.lines[0].length).toBe(MAX_LINE_CHARS - 1);
    expect(t.tail).toBe('😀'.repeat(3));
    const many = emptyFollowText();
    const added = appendFollowText(many, 'l\n'.repeat(MAX_LINES + 5));
    expect(added).toBe(MAX_LINES + 5);
    expect(many.lines.length).toBe(MAX_LINES);
    expect(many.dropped).toBe(5);
  });
});

describe('the follow view', () => {
  it('lists the running capture, follows its text as it grows, and opens the sealed record when it ends', async () => {
    const fake = await startApp();
    const run = { summary: CAPTURE, text: 'step 1\n', pending: '', state: 'running' as const, sealed: null };
    fake.control.running.push(run);
    const row = await screen.findByRole('row', { name: /make -j8 all, stdout, running/ }, { timeout: 5000 });
    fireEvent.keyDown(row, { key: 'Enter' });
    await screen.findByTestId('follow-view');
    await waitFor(() => expect(followText().lines).toEqual(['step 1']));
    expect(screen.getByTestId('follow-state').textContent).toBe('running');

    run.text += 'step 2\nstep 3\nready> ';
    run.pending = 'y';
    await waitFor(() => expect(followText().lines).toEqual(['step 1', 'step 2', 'step 3']), { timeout: 3000 });
    expect(followText().tail).toBe('ready> ');
    await waitFor(() => expect(screen.getAllByTestId('follow-line').at(-1)!.textContent).toContain('ready> y'));

    // Scrolled up: autoscroll stops; at the end again it resumes.
    const box = screen.getByTestId('follow-text');
    Object.defineProperty(box, 'scrollHeight', { configurable: true, value: 2000 });
    Object.defineProperty(box, 'clientHeight', { configurable: true, value: 300 });
    act(() => {
      box.scrollTop = 100;
      fireEvent.scroll(box);
    });
    expect(useFollow.getState().autoscroll).toBe(false);
    expect(screen.getByTestId('follow-jump')).toBeTruthy();
    act(() => {
      box.scrollTop = 1700;
      fireEvent.scroll(box);
    });
    expect(useFollow.getState().autoscroll).toBe(true);

    // Sealed: the record that holds it opens in the workspace.
    const sealedRecord = (await fake.listRecords())[1];
    run.state = 'sealed';
    run.sealed = { recordId: sealedRecord.id, ref: sealedRecord.artifacts[0].ref, interrupted: false };
    await waitFor(() => expect(useArtifact.getState().record?.id).toBe(sealedRecord.id), { timeout: 3000 });
    expect(useFollow.getState().open).toBeNull();
  });

  it('an interrupted capture is said to be interrupted', async () => {
    const fake = await startApp();
    fake.control.running.push({ summary: { ...CAPTURE, state: 'interrupted' }, text: 'half\n', pending: '', state: 'interrupted', sealed: null });
    const row = await screen.findByRole('row', { name: /make -j8 all, stdout, interrupted/ }, { timeout: 5000 });
    // The keys move between running rows and records' rows alike.
    row.focus();
    fireEvent.keyDown(row, { key: 'ArrowDown' });
    expect(document.activeElement?.getAttribute('data-stream')).toBe('stderr');
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('artifact-row');
    fireEvent.doubleClick(row);
    await screen.findByTestId('follow-interrupted');
    expect(screen.getByTestId('follow-state').textContent).toBe('interrupted');
  });
});
