import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markerText, Redactor } from '../../../shared/redact';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { BENIGN, PEM_KEYS, SECRETS } from '../../fixtures/secrets/credentials.mjs';

// A live log shows the part of an unfinished line that Redactor.preview() returns. The one
// property that makes that safe: whatever the rest of the line turns out to be, the redacted
// output of the line begins with exactly what the preview showed. So no byte shown early can be
// one the finished line redacts.

type Secret = { rule: string; line: string; values: string[] };
const secrets = SECRETS as Secret[];
const enc = new TextEncoder();
const dec = new TextDecoder();

function concat(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return all;
}

/**
 * Feeds `before` (whole lines) and `line.slice(0, cut)`, takes the preview, then the rest of the
 * line and the stream's end. Returns the preview and the output from the line's start on.
 */
function previewAt(before: string, line: string, cut: number): { preview: string; lineOut: string } {
  const r = new Redactor();
  const head = r.write(enc.encode(before));
  const b = enc.encode(line);
  const first = r.write(b.subarray(0, cut));
  const preview = r.preview();
  const rest = concat([r.write(b.subarray(cut)), r.write(enc.encode('\n')), r.end()]);
  const out = concat([head, first, rest]);
  // Output emitted before the preview was taken belongs before it (the part of the line a long-line cut emitted).
  const lineStart = head.length;
  return { preview: dec.decode(concat([first, preview])), lineOut: dec.decode(out.subarray(lineStart)) };
}

describe('Redactor.preview', () => {
  it('shows a prompt or a progress line up to its last word', () => {
    const r = new Redactor();
    r.write(enc.encode('step 1\nDownloading foo.tar.gz 45%'));
    expect(dec.decode(r.preview())).toBe('Downloading foo.tar.gz ');
    r.write(enc.encode(' '));
    expect(dec.decode(r.preview())).toBe('Downloading foo.tar.gz 45% ');
  });

  it('holds back the run with a key and everything after it', () => {
    const r = new Redactor();
    r.write(enc.encode('connecting as user=app password = '));
    expect(dec.decode(r.preview())).toBe('connecting as user=app ');
    const s = new Redactor();
    s.write(enc.encode('url postgres://app:hunter2 '));
    // no key yet (the `@` has not come), but the URL is the run the password lives in: a later `@`
    // in another run cannot take it, and the run itself is shown only once it ended with a blank
    expect(dec.decode(s.preview())).toBe('url postgres://app:hunter2 ');
    s.write(enc.encode('x'));
    expect(dec.decode(s.preview())).toBe('url postgres://app:hunter2 ');
  });

  it('shows nothing of a line with a key block edge, or while complete lines are held', () => {
    const r = new Redactor();
    r.write(enc.encode('-----BEGIN RSA '));
    expect(r.preview().length).toBe(0);
    const s = new Redactor();
    s.write(enc.encode('-----BEGIN RSA PRIVATE KEY-----\nMIIEow'));
    expect(s.preview().length).toBe(0);
  });

  it('replaces the marker bracket and its look-alike as the output will', () => {
    const r = new Redactor();
    r.write(enc.encode('fake \u27e6redacted:jwt\u27e7 and \u301a more'));
    expect(dec.decode(r.preview())).toBe('fake \ufffdredacted:jwt\u27e7 and \ufffd ');
  });

  it('with redaction off shows all that is held', () => {
    const r = new Redactor({ replace: false });
    r.write(enc.encode('token=ghp_'));
    expect(dec.decode(r.preview())).toBe('token=ghp_');
  });

  // Every fixture secret, alone and with text around it (some forms only count at a line's start), cut at every byte.
  for (const s of secrets) {
    it(`${s.rule}: the output begins with the preview at every cut`, () => {
      for (const line of [`${s.line} trailing words`, `note: ${s.line}`]) {
        const b = enc.encode(line);
        for (let cut = 0; cut <= b.length; cut++) {
          // a cut inside a character is a chunk edge the sanitizer's output never makes
          if (cut < b.length && (b[cut] & 0xc0) === 0x80) continue;
          const { preview, lineOut } = previewAt('earlier line\n', line, cut);
          expect(lineOut.startsWith(preview), `cut ${cut}: ${JSON.stringify(preview)} vs ${JSON.stringify(lineOut.slice(0, preview.length + 20))}`).toBe(true);
          for (const v of s.values) expect(preview).not.toContain(v);
        }
      }
      expect(previewAt('', `${s.line} trailing words`, 0).lineOut).toContain(markerText(s.rule));
    });
  }

  it('private key blocks: nothing of a header, a footer or the lines between is shown early', () => {
    for (const key of PEM_KEYS as string[][]) {
      const text = key.join('\n');
      const b = enc.encode(text);
      for (let cut = 0; cut <= b.length; cut += 7) {
        const r = new Redactor();
        const first = r.write(b.subarray(0, cut));
        const p = r.preview();
        const out = dec.decode(concat([first, r.write(b.subarray(cut)), r.write(enc.encode('\n')), r.end()]));
        expect(out.startsWith(dec.decode(concat([first, p]))), `${key[0]} cut ${cut}`).toBe(true);
        for (const line of key.slice(1, -1)) if (line.length > 20) expect(dec.decode(p)).not.toContain(line.slice(0, 20));
      }
    }
  });

  it('property: for any line and any cut, the redacted line begins with the preview', () => {
    const pieces = [
      ...secrets.flatMap((s) => [s.line, ...s.values]),
      ...(BENIGN as string[]),
      ' ', '  ', '\t', '=', ': ', '"', "'", '@', '://', 'https://', 'postgres://u:', 'password', 'token', 'Authorization: ',
      'Bearer ', 'Digest ', '-----', '-----BEGIN ', 'PRIVATE ', 'KEY-----', 'ghp_', 'sk-', 'eyJ', 'Q~', '\u27e6', '\u301a', 'é', '本', 'abc', '42%',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 8 }), fc.nat(), fc.constantFrom('', 'prior\n'), (parts, at, before) => {
        const line = parts.join('').replace(/\n/g, ' ');
        const b = enc.encode(line);
        let cut = at % (b.length + 1);
        while (cut < b.length && (b[cut] & 0xc0) === 0x80) cut++;
        const { preview, lineOut } = previewAt(before, line, cut);
        return lineOut.startsWith(preview);
      }),
      { numRuns: 3000 },
    );
  });

  it('stays bounded and linear: a held line of 64 KiB without blanks shows nothing, one with blanks shows up to its last word', () => {
    const r = new Redactor();
    r.write(enc.encode('a'.repeat(60_000)));
    expect(r.preview().length).toBe(0);
    const s = new Redactor();
    s.write(enc.encode('word '.repeat(12_000)));
    expect(s.preview().length).toBe(60_000);
  });
});
