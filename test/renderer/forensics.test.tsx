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
