// The viewer's text is the capture's redacted text: getTextLines' pieces, each secret written as its
// marker once, equal what one Redactor with the same policy makes of the sanitized text, in both
// CR modes, at small page and line sizes (secrets cut across pages, lines and segments); a text
// search never finds a secret; the secrets' raw extents cover the bytes their text came from.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_LINES } from '../../../../shared/bridge/limits';
import { DEFAULT_LIMITS } from '../../../../shared/parser';
import type { TextPiece } from '../../../../shared/bridge/types';
import { DEFAULT_POLICY, markerText } from '../../../../shared/redact';
import { sanitize } from '../../../../shared/sanitize';
import { redactText } from '../../../../app/redact/text';
import { fixture, indexed, type Fixture } from './helpers';
// @ts-expect-error -- a plain .mjs fixture shared with the capture fixture
import { PEM_KEYS, SECRETS } from '../../../fixtures/secrets/credentials.mjs';

type Secret = { rule: string; line: string; values: string[] };
const LINES = (SECRETS as Secret[]).map((s) => s.line);

function pieceText(p: TextPiece): string {
  if (p.t === 'chip') return p.span.cls === 9 ? '\uFFFD' : '';
  if (p.t === 'secret') return p.continued ? '' : markerText(p.secret.rule);
  return p.text;
}

async function viewerText(f: Fixture, ref: string): Promise<{ text: string; pieces: TextPiece[] }> {
  const first = await f.service.getTextLines(ref, 0, MAX_TEXT_LINES);
  const lines = [...first.lines];
  while (lines.length < first.totalLines) lines.push(...(await f.service.getTextLines(ref, lines.length, MAX_TEXT_LINES)).lines);
  return { text: lines.map((l) => l.pieces.map(pieceText).join('')).join(''), pieces: lines.flatMap((l) => l.pieces) };
}

/** Whether every occurrence of `value` in `text` is inside a line that begins with `line`. */
function onlyInLine(text: string, value: string, line: string): boolean {
  for (let i = text.indexOf(value); i >= 0; i = text.indexOf(value, i + 1)) {
    if (!text.startsWith(line, text.lastIndexOf('\n', i - 1) + 1)) return false;
  }
  return true;
}

const piece = fc.oneof(
  fc.constantFrom(...LINES.map((l) => `${l}\n`)),
  fc.constantFrom(...(PEM_KEYS as string[][]).map((k) => `${k.join('\n')}\n`)),
  fc.constantFrom('\x1b[1;31m', '\x1b]0;t\x07', '\r', 'build ok\n', 'progress 10%\rprogress 99%\n', '\x1b]52;c;Zm9v\x07', 'token: ', ' '),
);

describe('the viewer text is the redacted text', () => {
  for (const cr of ['newline', 'overwrite'] as const) {
    it(`${cr}: pieces with markers equal one Redactor over the sanitized text`, async () => {
      let seen = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 14 }), fc.integer({ min: 16, max: 300 }), fc.integer({ min: 8, max: 120 }), async (parts, pageBytes, maxLineBytes) => {
          const bytes = Buffer.from(parts.join(''));
          const f = await fixture({ pageBytes, maxLineBytes, sanitizerFor: async () => ({ cr, limits: { ...DEFAULT_LIMITS } }) });
          try {
            const { ref } = await indexed(f, bytes);
            const text = Buffer.from(sanitize(bytes, { cr }).text).toString('utf8');
            const want = redactText(text, DEFAULT_POLICY).text;
            const got = await viewerText(f, ref);
            expect(got.text).toBe(want);
            seen += got.pieces.filter((p) => p.t === 'secret').length;
            // Of every fixture secret printed as its line (at a line's start: some rules read a
            // name only there, and 'token: ' before it makes another field), no value reaches a
            // text piece, and a search for it finds nothing.
            const printed = (SECRETS as Secret[]).filter((s) => s.values.some((v) => text.includes(v)) && s.values.every((v) => onlyInLine(text, v, s.line)));
            for (const s of printed) for (const v of s.values) expect(got.pieces.some((p) => p.t === 'text' && p.text.includes(v))).toBe(false);
            for (const s of printed) {
              const v = s.values[0];
              if (v.length >= 8) expect((await f.service.searchText(ref, v, {}, null)).total).toBe(0);
            }
          } finally {
            await f.cleanup();
          }
        }),
        { numRuns: 25 },
      );
      // The property is about secrets: the runs must have held some.
      expect(seen).toBeGreaterThan(10);
    }, 240_000);
  }
});
