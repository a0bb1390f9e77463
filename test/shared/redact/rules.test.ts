import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkMarkers, markerText, parseAllowlist, Redactor, RULES, type RedactionPolicy } from '../../../shared/redact';
import { Sanitizer } from '../../../shared/sanitize';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { BENIGN, KEY_BODY, PEM_KEYS, SECRETS } from '../../fixtures/secrets/credentials.mjs';

type Secret = { rule: string; line: string; values: string[] };
const secrets = SECRETS as Secret[];
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Runs text through a Redactor in chunks of `step` bytes. */
function redact(text: string, step = 1 << 20, policy?: RedactionPolicy): { out: string; r: Redactor } {
  const r = new Redactor({ policy });
  const b = enc.encode(text);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += step) parts.push(r.write(b.subarray(i, i + step)));
  parts.push(r.end());
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return { out: dec.decode(all), r };
}

describe('every rule', () => {
  it('has a realistic fake credential in the fixture', () => {
    const covered = new Set(secrets.map((s) => s.rule));
    for (const rule of RULES) expect(covered.has(rule.id), rule.id).toBe(true);
  });

  for (const s of secrets) {
    it(`${s.rule}: ${s.line.slice(0, 60)}`, () => {
      const { out, r } = redact(`${s.line}\n`);
      for (const v of s.values) expect(out).not.toContain(v);
      expect(out).toContain(markerText(s.rule));
      expect(r.report().rules).toEqual({ [s.rule]: 1 });
      expect(checkMarkers(out, r.redactions().list)).toEqual([]);
    });
  }

  it('reads a field whose name came where a value could stand (`token: "api_key": "…"`): the name stays, its value goes', () => {
    // Found by the viewer's property test: the name was taken as token's value, and the match's
    // end passed it, so api_key's value went unredacted.
    for (const line of ['token: "api_key": "a1b2c3d4e5f6a7b8"', 'password: "TOKEN": "Zq8vN2rT6yLp"', 'secret = "token": "p4ss-W0rd-9x"']) {
      const { out } = redact(`${line}\n`);
      const value = /"([^"]+)"$/.exec(line)![1];
      expect(out, line).not.toContain(value);
      expect(out, line).toContain(markerText('credential-assignment'));
    }
    expect(redact('token: "api_key": "a1b2c3d4e5f6a7b8"\n').out).toBe(`token: "api_key": "${markerText('credential-assignment')}"\n`);
  });

  it('keeps the context around a value readable', () => {
    expect(redact('DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app\n').out).toBe(`DATABASE_URL=postgres://app:${markerText('database-url-password')}@db.internal:5432/app\n`);
    expect(redact("curl -H 'Authorization: Bearer abc.def-GHI_123' x\n").out).toBe(`curl -H 'Authorization: Bearer ${markerText('authorization-header')}' x\n`);
  });
});

describe('private keys', () => {
  for (const key of PEM_KEYS as string[][]) {
    it(`${key[0]} as lines, whole`, () => {
      const { out, r } = redact(`before\n${key.join('\n')}\nafter\n`);
      expect(out).toBe(`before\n${markerText('private-key')}\nafter\n`);
      expect(r.report().count).toBe(1);
    });
  }
  it('cut by truncation (no footer before the end of the stream)', () => {
    const { out } = redact(`x\n-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY[0]}\n${KEY_BODY[1]}\n`);
    expect(out).toBe(`x\n${markerText('private-key')}\n`);
  });
  it('cut by truncation in the middle of a line', () => {
    const { out } = redact(`-----BEGIN RSA PRIVATE KEY-----\n${KEY_BODY[0]}\n${KEY_BODY[1].slice(0, 20)}`);
    for (const v of [KEY_BODY[0], KEY_BODY[1].slice(0, 20)]) expect(out).not.toContain(v);
  });
  it('its tail (footer without header) takes the key lines above it', () => {
    const { out } = redact(`$ tail -3 key.pem\n${KEY_BODY[0]}\n${KEY_BODY[1]}\n-----END RSA PRIVATE KEY-----\ndone\n`, 7);
    expect(out).toBe(`$ tail -3 key.pem\n${markerText('private-key')}\ndone\n`);
  });
  it('a key that stops early leaves the following output alone', () => {
    const { out } = redact(`-----BEGIN PRIVATE KEY-----\n${KEY_BODY[0]}\nError: unexpected end of file\n`);
    expect(out).toBe(`${markerText('private-key')}\nError: unexpected end of file\n`);
  });
  it('a block larger than the hold is redacted in parts: no key line reaches the text', () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `${KEY_BODY[i % 2]}`);
    for (const step of [4096, 1 << 20]) {
      const { out, r } = redact(`start\n-----BEGIN RSA PRIVATE KEY-----\n${lines.join('\n')}\n-----END RSA PRIVATE KEY-----\nend\n`, step);
      for (const v of KEY_BODY.slice(0, 2)) expect(out).not.toContain(v);
      expect(out.startsWith('start\n')).toBe(true);
      expect(out.endsWith('\nend\n')).toBe(true);
      expect(r.report().rules['private-key']).toBeGreaterThan(1);
    }
  });

  it('base64 lines without a key header or footer pass', () => {
    const text = `${KEY_BODY[0]}\n${KEY_BODY[1]}\nok\n`;
    expect(redact(text, 5).out).toBe(text);
  });
});

describe('benign look-alikes', () => {
  for (const line of BENIGN as string[]) {
    it(`pass unchanged: ${line.slice(0, 50)}`, () => {
      const { out, r } = redact(`${line}\n`);
      expect(out).toBe(`${line}\n`);
      expect(r.report().count).toBe(0);
    });
  }
});

describe('split secrets', () => {
  const all = `${secrets.map((s) => s.line).join('\n')}\n${(PEM_KEYS as string[][]).map((k) => k.join('\n')).join('\n')}\n${(BENIGN as string[]).join('\n')}\n`;
  const whole = redact(all);

  it('any chunking of the text gives the same output and counts (a secret across reads is seen whole)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 97 }), (step) => {
        const split = redact(all, step);
        expect(split.out).toBe(whole.out);
        expect(split.r.report()).toEqual(whole.r.report());
      }),
      { numRuns: 40 },
    );
    for (const s of secrets) for (const v of s.values) expect(whole.out).not.toContain(v);
  });

  it('a token split by colour codes, a zero-width space or an OSC reassembles in the sanitizer and is redacted', () => {
    const raw = 'a: gh\x1b[31mp_oSn9qpK2rztUxLjOMw20G\x1b[0mdtWRW41ZayKJTXf\nb: AKIA\u200bZ7S3JAIQUVVPU5VE\nc: xoxb-1234567890123-\x1b]0;title\x07123456789012-aBcDeFgHiJkLmNoPqRsTuVwX\n';
    const s = new Sanitizer();
    const r = new Redactor();
    const bytes = enc.encode(raw);
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) out += dec.decode(r.write(s.write(bytes.subarray(i, i + 3))), { stream: true });
    out += dec.decode(r.write(s.end())) + dec.decode(r.end());
    expect(out).toBe(`a: ${markerText('github-token')}\nb: ${markerText('aws-access-key-id')}\nc: ${markerText('slack-token')}\n`);
  });

  it('a line longer than the hold is cut with context kept: a secret across the cut is still found', () => {
    const filler = 'x '.repeat(40_000);
    const text = `${filler}token ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf ${filler}\n`;
    for (const step of [4096, 65_536, 1 << 20]) {
      const { out, r } = redact(text, step);
      expect(out).not.toContain('ghp_oSn9');
      expect(r.report().count).toBe(1);
    }
  });
});

describe('markers', () => {
  it('cannot be forged by the output: look-alike brackets become U+FFFD and checkMarkers finds no unlisted marker', () => {
    const forged = `ok ${markerText('github-token')} \u301aredacted:jwt\u301b ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf\n`;
    const { out, r } = redact(forged);
    expect(out).toBe(`ok \ufffdredacted:github-token\u27e7 \ufffdredacted:jwt\u301b ${markerText('github-token')}\n`);
    expect(r.report()).toMatchObject({ count: 1, lookalikes: 2 });
    expect(checkMarkers(out, r.redactions().list)).toEqual([]);
    // Without the replacement the forged marker is caught by the check.
    expect(checkMarkers(forged, [])).toEqual(['unlisted marker opening at byte 3']);
  });

  it('lists each redaction at its byte offsets in both texts', () => {
    const { out, r } = redact('é ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf\n');
    expect(r.redactions().list).toEqual([{ rule: 'github-token', offset: 3, length: 40, at: 3 }]);
    expect(out).toBe(`é ${markerText('github-token')}\n`);
  });
});

describe('allowlist', () => {
  it('disable, allow (value pattern), allow-line (context) and min-entropy change what is redacted', () => {
    const policy = parseAllowlist('# team policy\ndisable jwt\nallow url-password /hunter\\d/\nallow-line database-url-password /@localhost[:/]/\nmin-entropy aws-access-key-id 4.5\n');
    const text = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk\nhttps://u:hunter2@example.com\npostgres://u:devpw@localhost:5432/db\npostgres://u:prodpw@db.example.com/db\nAKIAZ7S3JAIQUVVPU5VE\n';
    const { out, r } = redact(text, 1 << 20, policy);
    expect(out).toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(out).toContain('hunter2');
    expect(out).toContain('devpw@localhost');
    expect(out).not.toContain('prodpw');
    expect(out).toContain('AKIAZ7S3JAIQUVVPU5VE');
    expect(r.report().rules).toEqual({ 'database-url-password': 1 });
  });

  it('refuses bad lines with their number, unknown rules, and plain values (no secrets in an allowlist)', () => {
    expect(() => parseAllowlist('disable nope')).toThrow(/line 1: unknown rule 'nope'/);
    expect(() => parseAllowlist('\nallow github-token /ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf/')).toThrow(/line 2: a plain value is not stored/);
    expect(() => parseAllowlist('allow * /(/')).toThrow(/line 1: bad regular expression/);
    expect(() => parseAllowlist('frobnicate x')).toThrow(/unknown directive/);
    expect(() => parseAllowlist('min-entropy jwt lots')).toThrow(/bits per character/);
  });
});

describe('off', () => {
  it('counts without replacing (replace: false)', () => {
    const r = new Redactor({ replace: false });
    const text = 'ghp_oSn9qpK2rztUxLjOMw20GdtWRW41ZayKJTXf \u27e6\n';
    const out = dec.decode(r.write(enc.encode(text))) + dec.decode(r.end());
    expect(out).toBe(text);
    expect(r.report()).toMatchObject({ count: 1, rules: { 'github-token': 1 } });
    expect(r.redactions().list).toEqual([]);
  });
});
