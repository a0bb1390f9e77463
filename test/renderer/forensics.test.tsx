// @vitest-environment happy-dom
// Redaction chips and decoded payloads in the renderer (#40 desktop, #39 item 7): a secret piece is
// an app-drawn chip with its rule, never its value, until a grant's getSecretValues answers; copy
// and export write the capture's marker; the Payloads tab is locked without a grant and lists
// inert caret notation with one.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { endGrant } from '../../renderer/src/actions';
import { bridge, setBridge } from '../../renderer/src/bridge';
import { linesText, selectedText } from '../../renderer/src/lib/formats';
import { LinePieces } from '../../renderer/src/views/TextView';
import type { AirlockBridge } from '../../shared/bridge/contract';
import type { SecretInfo, TextLine } from '../../shared/bridge/types';
import { NOT_INERT, grantRaw, openSample, startApp, stopApp } from './setup';

afterEach(() => stopApp());

const VALUE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const secret: SecretInfo = { index: 0, rule: 'stripe-key', offset: 17, length: VALUE.length, textOffset: 17, textLength: VALUE.length };
const line: TextLine = {
  line: 0, textOffset: 0, rawStart: 0, rawEnd: 60, continued: false,
  pieces: [
    { t: 'text', text: 'stripe.api_key = ', raw: 0, rawLength: 17, direct: true },
    { t: 'secret', secret, continued: false },
    { t: 'text', text: ' loaded\n', raw: 17 + VALUE.length, rawLength: 8, direct: true },
  ],
};

describe('redaction chips', () => {
  it('without a grant: the rule, never the value; copy and export write the marker', async () => {
    await startApp();
    await openSample();
    render(<LinePieces line={line} range={null} cursor={0} />);
    const chip = screen.getByTestId('secret-chip');
    expect(chip.textContent).toBe('stripe-key');
    expect(chip.getAttribute('aria-label')).toContain('Redacted secret (stripe-key)');
    expect(document.body.textContent).not.toContain(VALUE);
    expect(linesText([line], false)).toBe('stripe.api_key = ⟦redacted:stripe-key⟧ loaded\n');
    expect(selectedText([line], 0, 60).text).toBe('stripe.api_key = ⟦redacted:stripe-key⟧ loaded');
  });

  it('with a grant: the value from getSecretValues, inside the chip; dropped when the grant ends', async () => {
    await startApp();
    await openSample();
    await grantRaw();
    const asked: [string, number, number][] = [];
    const real = bridge();
    setBridge({ ...real, getSecretValues: async (g: string, o: number, n: number) => {
      asked.push([g, o, n]);
      return [{ index: 0, rule: 'stripe-key', offset: 17, length: VALUE.length, value: VALUE, truncated: false }];
    } } as AirlockBridge);
    const { rerender } = render(<LinePieces line={line} range={null} cursor={0} />);
    await waitFor(() => expect(asked).toHaveLength(1));
    rerender(<LinePieces line={{ ...line }} range={null} cursor={1} />);
    await waitFor(() => expect(screen.getByTestId('secret-chip').textContent).toContain(VALUE));
    expect(screen.getByTestId('secret-chip').className).toContain('revealed');
    expect(asked[0][1]).toBe(17);
    await act(() => endGrant('revoked', false));
    rerender(<LinePieces line={{ ...line }} range={null} cursor={2} />);
    expect(screen.getByTestId('secret-chip').textContent).toBe('stripe-key');
    expect(document.body.textContent).not.toContain(VALUE);
  });
});

describe('Payloads tab', () => {
  it('is locked without a grant and lists inert decoded payloads with one', async () => {
    await startApp();
    await openSample();
    fireEvent.click(screen.getByRole('tab', { name: 'Payloads' }));
    expect(screen.getByTestId('payloads-locked').textContent).toContain('raw access');
    expect(screen.queryAllByTestId('payload')).toHaveLength(0);
    await grantRaw();
    await waitFor(() => expect(screen.queryAllByTestId('payload').length).toBeGreaterThan(0));
    const items = screen.getAllByTestId('payload');
    expect(items.some((p) => p.dataset.kind === 'clipboard')).toBe(true);
    for (const p of items) expect(p.textContent ?? '').not.toMatch(NOT_INERT);
    await act(async () => undefined);
  });
});

describe('review queue', () => {
  it('warns when a request\'s range holds a suspected secret (count and rule), and not when it holds none', async () => {
    const fake = await startApp();
    const artifact = `restricted:sha256:${'ab'.repeat(32)}`;
    fake.control.requests = [{
      id: 'req-20261201T100000Z-00000001', state: 'pending', createdAt: new Date().toISOString(), artifact, size: 826, kind: 'hex-range', range: [333, 429],
      expect: null, search: null, reason: 'check it', requester: 'agent@box via mcp', expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      decidedAt: null, decidedBy: null, note: null, extract: null, title: 'build.log',
    }];
    const asked: [string, number, number][] = [];
    let found: SecretInfo[] = [{ ...secret, offset: 400, length: 32 }];
    setBridge({ ...bridge(), getSecrets: async (ref: string, o: number, n: number) => {
      asked.push([ref, o, n]);
      return found.filter((s) => s.offset < o + n && s.offset + s.length > o);
    } } as AirlockBridge);
    fireEvent.click(await screen.findByRole('button', { name: /^Requests/ }));
    const warning = await screen.findByTestId('secret-overlap');
    expect(warning.textContent).toContain('1 suspected secret (stripe-key)');
    expect(warning.textContent).toContain('approving returns their values as hex');
    expect(asked[0]).toEqual([artifact, 333, 96]);
    // None in the range: no warning.
    stopApp();
    const again = await startApp();
    again.control.requests = [{ ...(fake.control.requests[0]), id: 'req-20261201T100000Z-00000002' }];
    found = [];
    setBridge({ ...bridge(), getSecrets: async () => found } as AirlockBridge);
    fireEvent.click(await screen.findByRole('button', { name: /^Requests/ }));
    await screen.findByTestId('request-detail');
    await act(async () => new Promise((r) => setTimeout(r, 50)));
    expect(screen.queryByTestId('secret-overlap')).toBeNull();
  });
});
