// @vitest-environment happy-dom
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRequests } from '../../renderer/src/stores';
import type { RequestView } from '../../shared/bridge/types';
import { startApp, stopApp } from './setup';

afterEach(stopApp);

const base: Omit<RequestView, 'id' | 'state' | 'createdAt'> = {
  artifact: `restricted:sha256:${'ab'.repeat(32)}`, size: 826, kind: 'hex-range', range: [333, 429], expect: null, search: null,
  reason: 'check the OSC 52 write', requester: 'agent@box via mcp', expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  decidedAt: null, decidedBy: null, note: null, extract: null, title: 'build.log',
};
const queue = (): RequestView[] => [
  { ...base, id: 'req-20261201T100000Z-00000001', state: 'pending', createdAt: new Date(Date.now() - 120_000).toISOString() },
  // A reason as main escapes it: the renderer shows it as text, never as markup.
  { ...base, id: 'req-20261201T090000Z-00000002', state: 'pending', kind: 'text', range: null, reason: '<img src=x onerror=alert(1)> \\x1b[2J', createdAt: new Date(Date.now() - 600_000).toISOString() },
  { ...base, id: 'req-20261201T080000Z-00000003', state: 'denied', createdAt: new Date(Date.now() - 7_200_000).toISOString(), decidedAt: new Date().toISOString(), decidedBy: 'me@host via cli', note: 'no' },
];

async function openQueue() {
  const fake = await startApp();
  fake.control.requests = queue();
  fireEvent.click(await screen.findByRole('button', { name: /^Requests/ }));
  await screen.findByTestId('requests-view');
  await waitFor(() => expect(screen.getAllByTestId('request-row')).toHaveLength(3));
  return fake;
}

describe('Requests view', () => {
  it('the vault browser\'s Requests button counts what is pending', async () => {
    const fake = await startApp();
    fake.control.requests = queue();
    await loadRequests();
    expect(await screen.findByRole('button', { name: 'Requests 2 pending' })).toBeTruthy();
  });

  it('lists the queue densely with the reason as text, and shows the first request', async () => {
    await openQueue();
    const rows = screen.getAllByTestId('request-row');
    expect(rows.map((r) => r.getAttribute('data-state'))).toEqual(['pending', 'pending', 'denied']);
    expect(within(rows[0]).getByText('0x14d–0x1ad (96 B)')).toBeTruthy();
    expect(rows[1].querySelector('img')).toBeNull();
    expect(within(rows[1]).getByText('<img src=x onerror=alert(1)> \\x1b[2J')).toBeTruthy();
    expect(screen.getByTestId('request-detail').getAttribute('data-id')).toBe('req-20261201T100000Z-00000001');
    expect(screen.getByTestId('requests-view').querySelector('.vault-head p')!.textContent).toContain('2 pending · 3 in the queue');
  });

  it('keyboard: ↓ selects the next request, D denies it', async () => {
    const fake = await openQueue();
    const first = screen.getAllByTestId('request-row')[0];
    fireEvent.keyDown(first, { key: 'ArrowDown' });
    await waitFor(() => expect(screen.getByTestId('request-detail').getAttribute('data-id')).toBe('req-20261201T090000Z-00000002'));
    await act(async () => {
      fireEvent.keyDown(screen.getAllByTestId('request-row')[1], { key: 'd' });
    });
    await waitFor(() => expect(screen.getByTestId('request-state').textContent).toBe('denied'));
    expect(fake.control.calls).toContain('reviewRequest');
  });

  it('approve goes to main (its prompt), and what it returned is shown; no actions once decided', async () => {
    await openQueue();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Approve…' }));
    });
    await waitFor(() => expect(screen.getByTestId('request-state').textContent).toBe('approved'));
    expect(screen.getByTestId('request-extract').textContent).toContain('1b 5d 35 32');
    expect(screen.queryByRole('button', { name: 'Approve…' })).toBeNull();
  });

  it('a human denial in the prompt leaves no extract', async () => {
    const fake = await openQueue();
    fake.control.decision = 'deny';
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Approve…' }));
    });
    await waitFor(() => expect(screen.getByTestId('request-state').textContent).toBe('denied'));
    expect(screen.queryByTestId('request-extract')).toBeNull();
  });

  it('back to the vault', async () => {
    await openQueue();
    fireEvent.click(screen.getByRole('button', { name: 'Back to the vault' }));
    await screen.findByTestId('vault-browser');
  });
});
