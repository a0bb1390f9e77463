// The index's secrets column (build-secrets.ts) is what one Redactor over the artifact's whole
// sanitized text finds, whatever the build: one run, or segments spliced at hand-overs whose
// Redactors saw other text before (key blocks across pages and segment starts, secrets split by
// escapes, long lines), at small page sizes, in both CR modes; and an allowlist is applied.
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../../app/services/artifact/build';
import { SECRET_RULES, secretsKey, type SecretsSetup } from '../../../../app/services/artifact/build-secrets';
import { sanitizerFingerprint } from '../../../../app/services/artifact/fingerprint';
import { DEFAULT_LIMITS } from '../../../../shared/parser';
import { parseAllowlist, Redactor, type RedactionPolicy } from '../../../../shared/redact';
import { sanitize } from '../../../../shared/sanitize';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { KEY_BODY, PEM_KEYS, SECRETS } from '../../../fixtures/secrets/credentials.mjs';

const root = mkdtempSync(join(tmpdir(), 'airlock-secrets-col-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

type Secret = { rule: string; line: string; values: string[] };
const secretLines = (SECRETS as Secret[]).map((s) => s.line);

/** The records of secrets.bin as [start, end, rule id]. */
function columnOf(bytes: Uint8Array, cr: 'newline' | 'overwrite', pageBytes: number, segments: number, secrets?: SecretsSetup): [number, number, string][] {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const raw = join(root, `raw-${seq++}`);
  writeFileSync(raw, bytes);
  const outDir = join(root, `out-${seq++}`);
  mkdirSync(outDir, { mode: 0o700 });
  try {
    buildIndex({ rawPath: raw, outDir, sha256: sha, sanitizerFingerprint: sanitizerFingerprint(), pageBytes, segments, sanitizer: { cr, limits: { ...DEFAULT_LIMITS } }, secrets });
    const col = readFileSync(join(outDir, 'secrets.bin'));
    const f = new Float64Array(new Uint8Array(col).buffer);
    const out: [number, number, string][] = [];
    for (let i = 0; i < f.length; i += 3) out.push([f[i], f[i + 1], SECRET_RULES[f[i + 2]]]);
    return out;
  } finally {
    rmSync(raw, { force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** What one Redactor over the whole sanitized text finds. */
function direct(bytes: Uint8Array, cr: 'newline' | 'overwrite', policy?: RedactionPolicy): [number, number, string][] {
  const text = sanitize(bytes, { cr }).text;
  const out: [number, number, string][] = [];
  const r = new Redactor({ policy, maxListed: 0, onRedaction: (rule, offset, length) => out.push([offset, offset + length, rule]) });
  r.write(text);
  r.end();
  return out;
}

function check(bytes: Uint8Array, pageBytes: number, cuts: number[], crs: ('newline' | 'overwrite')[] = ['newline', 'overwrite']): number {
  let found = 0;
  for (const cr of crs) {
    const want = direct(bytes, cr);
    expect(columnOf(bytes, cr, pageBytes, 1), `${cr}, one run`).toEqual(want);
    for (const n of cuts) expect(columnOf(bytes, cr, pageBytes, n), `${cr}, ${n} segments of ${pageBytes}`).toEqual(want);
    found += want.length;
  }
  return found;
}

const enc = (s: string) => Buffer.from(s, 'utf8');
const filler = (n: number) => 'ordinary build output line, nothing to see\n'.repeat(n);

describe('the secrets column', () => {
  it('holds every fixture credential, in one run and spliced', () => {
    const text = secretLines.map((l, i) => `${filler(i % 4)}${l}\n`).join('') + (PEM_KEYS as string[][]).map((k) => `${filler(3)}${k.join('\n')}\n`).join('');
    const found = check(enc(text), 256, [2, 5, 13]);
    expect(found).toBeGreaterThanOrEqual(2 * secretLines.length);
  });

  it('a key block across many pages and segment starts, one cut by the end, one with a footer only', () => {
    const body = Array.from({ length: 60 }, (_, i) => KEY_BODY[i % KEY_BODY.length]).join('\n');
    const text = `${filler(5)}-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n${filler(8)}`
      + `${body}\n-----END PRIVATE KEY-----\n${filler(4)}-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n`;
    expect(check(enc(text), 128, [2, 3, 7, 19])).toBeGreaterThanOrEqual(6);
  });

  it('secrets split by escapes, zero-width characters and OSC strings, and lines longer than the Redactor holds', () => {
    const token = (SECRETS as Secret[]).find((s) => s.rule === 'github-token')!.values[0];
    const split = `x ${token.slice(0, 10)}\x1b[31m${token.slice(10, 20)}\u200b${token.slice(20, 30)}\x1b]0;t\x07${token.slice(30)} y\n`;
    const long = `${'a'.repeat(70_000)} ${token} ${'b'.repeat(3000)}\n`;
    const text = `${filler(3)}${split.repeat(20)}${long}${filler(2)}${split}`;
    expect(check(enc(text), 512, [2, 6], ['newline'])).toBeGreaterThanOrEqual(22);
    expect(check(enc(`${split}working 10%\rworking ${token}\rdone\n`.repeat(30)), 200, [3, 8])).toBeGreaterThan(30);
  });

  it('equals one Redactor on random arrangements of secrets, key blocks and hostile bytes', () => {
    const piece = fc.oneof(
      fc.constantFrom(...secretLines.map((l) => `${l}\n`)),
      fc.constantFrom(...(PEM_KEYS as string[][]).map((k) => `${k.join('\n')}\n`)),
      fc.constantFrom(`${KEY_BODY.join('\n')}\n`, '-----BEGIN PRIVATE KEY-----\n', '-----END PRIVATE KEY-----\n', '\x1b]52;c;Zm9v\x07', '\x1b[1;31m', '\r', '\u200d'),
      fc.integer({ min: 0, max: 6 }).map(filler),
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), fc.integer({ min: 64, max: 700 }), fc.integer({ min: 2, max: 9 }), (pieces, pageBytes, cut) => {
        check(enc(pieces.join('')), pageBytes, [cut], ['newline']);
      }),
      { numRuns: 25 },
    );
  });

  it('takes the vault\'s allowlist (and its key names it)', () => {
    const text = enc(`${filler(2)}${secretLines.join('\n')}\n`);
    const allowlist = 'disable github-token\nallow-line * /hooks\\.slack\\.com/\n';
    const setup = { allowlist, key: secretsKey('abc') };
    const want = direct(text, 'newline', parseAllowlist(allowlist));
    expect(want.some(([, , r]) => r === 'github-token')).toBe(false);
    expect(columnOf(text, 'newline', 300, 1, setup)).toEqual(want);
    expect(columnOf(text, 'newline', 300, 4, setup)).toEqual(want);
    expect(columnOf(text, 'newline', 300, 1).some(([, , r]) => r === 'github-token')).toBe(true);
  });
});
