// Stand-in for dist/airlock.mjs, used only to exercise the harness while the real CLI is being
// written (BENCH_AIRLOCK=bench/standin/airlock.mjs). A small streaming byte state machine; it is
// NOT the product and its numbers mean nothing about Airlock.
//   sanitize            stdin → stdout, drops escapes/controls/bidi/tags, keeps valid UTF-8, LF, TAB
//   capture --vault D -- cmd args...   runs cmd, stores raw bytes in D/raw.bin, prints sanitized
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const G = 0, E = 1, EI = 2, CSI = 3, STR = 4, STR_ESC = 5;

function makeSanitizer() {
  let state = G;
  let isOsc = false;
  let need = 0, cp = 0, min = 0, pend = []; // UTF-8 decoder state
  const c1 = (b) => {
    if (b === 0x9b) state = CSI;
    else if (b === 0x9d || b === 0x90 || b === 0x98 || b === 0x9e || b === 0x9f) { state = STR; isOsc = b === 0x9d; }
    // else: other C1 controls are dropped
  };
  return (chunk) => {
    const out = Buffer.allocUnsafe(chunk.length + 4 * pend.length + 8);
    let o = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (need > 0) {
        if ((b & 0xc0) === 0x80) {
          cp = (cp << 6) | (b & 0x3f); pend.push(b);
          if (--need === 0) {
            const ok = cp >= min && !(cp >= 0xd800 && cp <= 0xdfff) && cp <= 0x10ffff;
            if (ok && state === G) {
              if (cp >= 0x80 && cp <= 0x9f) c1(cp);
              else if (!((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || (cp >= 0xe0000 && cp <= 0xe007f))) {
                for (const x of pend) out[o++] = x;
              }
            } else if (ok && cp === 0x9c && (state === STR || state === STR_ESC)) state = G;
            pend = [];
          }
          continue;
        }
        need = 0; pend = []; // invalid sequence: dropped, reprocess b
      }
      if (b >= 0x80) {
        if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; min = 0x80; pend = [b]; }
        else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 0x0f; min = 0x800; pend = [b]; }
        else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x07; min = 0x10000; pend = [b]; }
        else if (b <= 0x9f) { if (state === G) c1(b); else if (b === 0x9c) state = G; }
        continue;
      }
      if (b === 0x18 || b === 0x1a) { state = G; continue; }
      switch (state) {
        case G:
          if (b === 0x1b) state = E;
          else if (b >= 0x20 && b !== 0x7f) out[o++] = b;
          else if (b === 0x0a || b === 0x09) out[o++] = b;
          break;
        case E:
          if (b === 0x5b) state = CSI;
          else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) { state = STR; isOsc = b === 0x5d; }
          else if (b >= 0x20 && b <= 0x2f) state = EI;
          else if (b !== 0x1b) state = G;
          break;
        case EI:
          if (b === 0x1b) state = E;
          else if (b >= 0x30 && b <= 0x7e) state = G;
          break;
        case CSI:
          if (b === 0x1b) state = E;
          else if (b >= 0x40 && b <= 0x7e) state = G;
          break;
        case STR:
          if (b === 0x1b) state = STR_ESC;
          else if (b === 0x07 && isOsc) state = G;
          break;
        case STR_ESC:
          state = b === 0x5c ? G : b === 0x1b ? STR_ESC : STR;
          break;
      }
    }
    return out.subarray(0, o);
  };
}

const [cmd, ...rest] = process.argv.slice(2);
if (rest.includes('--help')) { process.stdout.write(`usage: airlock ${cmd}\n`); process.exit(0); }
if (cmd === 'sanitize') {
  const s = makeSanitizer();
  process.stdin.on('data', (c) => process.stdout.write(s(c)));
} else if (cmd === 'capture') {
  const vault = rest[rest.indexOf('--vault') + 1];
  const argv = rest.slice(rest.indexOf('--') + 1);
  mkdirSync(vault, { recursive: true });
  const raw = createWriteStream(join(vault, 'raw.bin'));
  const s = makeSanitizer();
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (c) => { raw.write(c); process.stdout.write(s(c)); });
  child.on('close', (code) => raw.end(() => { process.exitCode = code ?? 1; }));
} else {
  process.stderr.write('stand-in supports: sanitize, capture\n');
  process.exit(2);
}
