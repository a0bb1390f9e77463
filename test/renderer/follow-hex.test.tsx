// @vitest-environment happy-dom
// The follow view's hex pane (renderer/src/follow-hex.ts, views/FollowHex.tsx) against the fake
// bridge: nothing raw is asked for before a grant; "Request raw access…" asks main for a grant on
// the followed stream; the rows grow as bytes arrive, the end kept in view until the user scrolls
// up; Revoke, a denial and a grant main ended drop every byte; the sealed record adopts the grant.
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFollow } from '../../renderer/src/follow';
import { followHexMoved, followHexPages, useFollowHex } from '../../renderer/src/follow-hex';
import { useArtifact, useGrants } from '../../renderer/src/stores';
import type { RunningSummary } from '../../shared/bridge/types';
import { startApp, stopApp } from './setup';

const CAPTURE: RunningSummary = {
  id: '20261207T120000Z-5e6f7a8b', startedAt: '2026-12-07T12:00:00.000Z', title: 'make -j8 all', cwd: '/src/app', streams: ['stdout', 'stderr'], state: 'running', textBytes: { stdout: 0, stderr: 0 },
};
const enc = (s: string) => new TextEncoder().encode(s);
const cat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

afterEach(() => {
  closeFollow();
  stopApp();
});

async function openFollowHex(raw: Uint8Array, decision: 'approve' | 'deny' | null = null) {
  const fake = await startApp();
  fake.control.decision = decision;
  const run = { summary: CAPTURE, text: 'step 1\n', pending: '', state: 'running' as const, sealed: null as null | { recordId: string; ref: string | null; interrupted: boolean }, raw };
  fake.control.running.push(run);
  const row = await screen.findByRole('row', { name: /make -j8 all, stdout, running/ }, { timeout: 5000 });
  fireEvent.keyDown(row, { key: 'Enter' });
  await screen.findByTestId('follow-view');
  fireEvent.click(screen.getByTestId('follow-tab-hex'));
  await screen.findByTestId('follow-hex-locked');
  return { fake, run };
}

describe('the follow view\'s hex pane', () => {
  it('reads nothing before a grant, then shows the stream\'s rows and grows with it, following the end until the user scrolls up', async () => {
    const first = enc('step 1 \x1b[31mred\x1b[0m\n');
    const { fake, run } = await openFollowHex(first);
    expect(fake.control.runningReads).toEqual([]);
    expect(screen.queryAllByTestId('follow-hex-row')).toHaveLength(0);

    fireEvent.click(screen.getByTestId('follow-hex-request'));
    await waitFor(() => expect(screen.getAllByTestId('follow-hex-row').length).toBe(2));
    expect(useFollowHex.getState().grant?.running).toEqual({ recordId: CAPTURE.id, stream: 'stdout' });
    const row0 = document.querySelector('[data-testid=follow-hex-row][data-offset="0"]')!;
    // The viewer's row: offset, hex, caret notation (ESC as ^[).
    expect(row0.textContent).toBe('00000000737465702031201b5b33316d7265641bstep 1 ^[[31mred^[');
    expect(screen.getByTestId('follow-grant-banner').textContent).toContain('stdout as it arrives');

    // Bytes arrive: the pane grows (the last, short page is read again) and keeps the end in view.
    let raw = first;
    for (let i = 0; i < 200; i++) raw = cat(raw, enc(`line ${String(i).padStart(3, '0')} \x1b]0;t\x07\n`));
    run.raw = raw;
    await waitFor(() => expect(useFollowHex.getState().size).toBe(raw.length), { timeout: 3000 });
    await waitFor(() => expect(screen.getByTestId('follow-hex').getAttribute('data-size')).toBe(String(raw.length)));
    const s = useFollowHex.getState();
    const rows = Math.ceil(raw.length / 16);
    expect(s.autoscroll).toBe(true);
    expect(s.top).toBe(Math.max(0, rows - s.visible));
    await waitFor(() => expect(document.querySelector(`[data-testid=follow-hex-row][data-offset="${(rows - 1) * 16}"]`)).not.toBeNull());
    expect(followHexPages().peek(0)!.length).toBe(raw.length);

    // Scrolled up: it stays there as more arrives, and says how far behind it is; End follows again.
    act(() => followHexMoved(0));
    expect(useFollowHex.getState().autoscroll).toBe(false);
    run.raw = raw = cat(raw, enc('more\n'.repeat(40)));
    await waitFor(() => expect(useFollowHex.getState().size).toBe(raw.length), { timeout: 3000 });
    expect(useFollowHex.getState().top).toBe(0);
    await waitFor(() => expect(screen.getByTestId('follow-hex-jump').textContent).toMatch(/new rows/));
    fireEvent.keyDown(screen.getByTestId('follow-hex-grid'), { key: 'End' });
    expect(useFollowHex.getState().autoscroll).toBe(true);
    expect(useFollowHex.getState().top).toBe(Math.max(0, Math.ceil(raw.length / 16) - useFollowHex.getState().visible));

    // Revoke: main is told, every byte leaves memory and the DOM.
    fireEvent.click(screen.getByTestId('follow-hex-revoke'));
    await screen.findByTestId('follow-hex-ended');
    expect(screen.queryAllByTestId('follow-hex-row')).toHaveLength(0);
    expect(followHexPages().size).toBe(0);
    expect(fake.control.grants.size).toBe(0);
  });

  it('a denial shows no byte; a grant main ended (the capture interrupted) drops them', async () => {
    const { fake } = await openFollowHex(enc('abc\n'), 'deny');
    fireEvent.click(screen.getByTestId('follow-hex-request'));
    await screen.findByTestId('follow-hex-denied');
    expect(fake.control.runningReads).toEqual([]);

    fake.control.decision = 'approve';
    fireEvent.click(screen.getByTestId('follow-hex-request'));
    await waitFor(() => expect(screen.getAllByTestId('follow-hex-row').length).toBe(1));
    // Main ends the grant (as when the capture is interrupted): the next read says so.
    fake.control.grants.clear();
    await screen.findByTestId('follow-hex-ended', {}, { timeout: 3000 });
    expect(followHexPages().size).toBe(0);
    expect(screen.queryAllByTestId('follow-hex-row')).toHaveLength(0);
  });

  it('sealed: the grant goes on over the sealed artifact, and the workspace that opens it adopts it', async () => {
    const { fake, run } = await openFollowHex(enc('abc\n'));
    fireEvent.click(screen.getByTestId('follow-hex-request'));
    await waitFor(() => expect(screen.getAllByTestId('follow-hex-row').length).toBe(1));
    const grant = useFollowHex.getState().grant!;
    // Main continued the grant on the sealed record's artifact (the same bytes under a digest).
    const sealedRecord = (await fake.listRecords())[0];
    const ref = sealedRecord.artifacts[0].ref;
    fake.control.grants.set(grant.id, { ...grant, ref });
    run.state = 'sealed';
    run.sealed = { recordId: sealedRecord.id, ref, interrupted: false };
    await waitFor(() => expect(useArtifact.getState().artifact?.ref).toBe(ref), { timeout: 3000 });
    await waitFor(() => expect(useGrants.getState().grant?.id).toBe(grant.id), { timeout: 3000 });
    expect(followHexPages().size).toBe(0);
  });
});
