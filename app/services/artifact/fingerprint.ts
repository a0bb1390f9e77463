// Identity of the parser + sanitizer that built an index. shared/ exports no version number, so the
// fingerprint is behavioural: a fixed hostile probe is sanitized (both CR modes, offset map and
// spans on) and everything observable is hashed. Any change to what the parser or sanitizer emits
// for the probe changes the fingerprint, and every cached index built by the old code is rebuilt.
import { createHash } from 'node:crypto';
import { Sanitizer } from '../../../shared/sanitize';
import { INDEX_FORMAT } from './format';

const PROBE = [
  '\x1b[1;31mred\x1b[0m \x1b]8;;https://x.example\x1b\\label\x1b]8;;\x1b\\ \x1b]52;c;cGF5bG9hZA==\x07',
  'a\rb\r\nc\bd \x1b]0;t\x9c \x9b31m\xc2\x9b0m \x1bP1$qm\x1b\\ \x1b_apc\x1b\\ \x1b^pm\x1b\\ \x1bXsos\x1b\\',
  '\x1b]2;x\x18y \x1b[31;', '9'.repeat(300), 'm \x1b(0q\x1b(B \x00\x07\x7f \x1b[?1049h \x1b[8m hidden',
].join('');
const PROBE_UTF8 = '€ 本 café \u202eevil\u202c \u{e0041} \u200b \u200e x\u0301';

let cached: string | null = null;

/** Hex fingerprint of the parser and sanitizer (and the index format), computed once per process. */
export function sanitizerFingerprint(): string {
  if (cached) return cached;
  const h = createHash('sha256');
  h.update(`format ${INDEX_FORMAT}\n`);
  const bytes = new Uint8Array([...Buffer.from(PROBE, 'latin1'), ...Buffer.from(PROBE_UTF8, 'utf8'), 0xff, 0xc3, 0x28, 0xe2, 0x82]);
  for (const cr of ['newline', 'overwrite'] as const) {
    const spans: number[] = [];
    const s = new Sanitizer({
      cr,
      mapOffsets: true,
      hooks: {
        onSpan: (cls, off, len, meaning, flags, code) => {
          spans.push(cls, off, len, flags, code);
          h.update(meaning);
        },
      },
    });
    // Two chunks so state across a boundary is part of the fingerprint too.
    const a = s.write(bytes.subarray(0, 37));
    const b = s.write(bytes.subarray(37));
    const c = s.end();
    h.update(a).update(b).update(c);
    h.update(spans.join(','));
    const map = s.map!;
    const total = a.length + b.length + c.length;
    const m: number[] = [];
    for (let t = 0; t < total; t++) m.push(map.textToRaw(t));
    h.update(m.join(','));
    h.update(JSON.stringify(s.getReport()));
  }
  cached = h.digest('hex').slice(0, 32);
  return cached;
}
