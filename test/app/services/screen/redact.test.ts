// The viewer's screen view goes through the capture's redaction stage: a secret on one row, one
// wrapped across rows, and one in a finding's hidden text are never served as text.
import { describe, expect, it } from 'vitest';
import { screenViewOf } from '../../../../app/services/screen/view';
import { redactScreenView } from '../../../../app/services/screen/redact';
import { DEFAULT_POLICY } from '../../../../shared/redact';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { SECRETS } from '../../../fixtures/secrets/credentials.mjs';

const TOKEN = (SECRETS as { rule: string; values: string[] }[]).find((s) => s.rule === 'github-token')!.values[0];

describe('redactScreenView', () => {
  it('redacts a secret on a row, wrapped across rows, and in a finding over a secret the index found', () => {
    const hiddenAt = Buffer.byteLength(`token ${TOKEN}\r\n${'x'.repeat(29)} ${TOKEN}\r\nhidden `);
    const bytes = Buffer.from(`token ${TOKEN}\r\n${'x'.repeat(29)} ${TOKEN}\r\nhidden ${TOKEN}\r\x1b[2K done\r\n`);
    const view = screenViewOf(bytes, 40, 10);
    expect(JSON.stringify(view)).toContain(TOKEN.slice(0, 12));
    expect(view.findings.length).toBeGreaterThan(0);
    const red = redactScreenView(view, DEFAULT_POLICY, [{ offset: hiddenAt, length: TOKEN.length, rule: 'github-token', value: TOKEN }]);
    const all = JSON.stringify(red);
    for (const part of [TOKEN, TOKEN.slice(0, 12), TOKEN.slice(-6)]) expect(all, part).not.toContain(part);
    expect(red.screen.slice(0, 5)).toEqual([...Array(4).fill('⟦redacted:github-token⟧'), 'hidden ⟦redacted:github-token⟧']);
    expect(red.findings.every((f) => f.text === '⟦redacted:github-token⟧')).toBe(true);
    expect(red.screen.length).toBe(view.screen.length);
    expect(red.findings.length).toBe(view.findings.length);
  });
});
