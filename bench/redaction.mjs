// The redaction stage against the sanitizer it follows (issue #40: at most 20 % of sanitize on the
// bench inputs). In a fresh process per input, with the input in memory, 1 MiB chunks, both warm:
// rounds alternate the Sanitizer alone (what `airlock sanitize` runs) and the Sanitizer with the
// Redactor on its output (what capture runs); the stage's cost is their difference, as a share of
// the sanitizer's time in the same rounds. Times are the process's CPU time (user + system), not
// wall time: on a shared machine wall time also counts the waits for a core. shared/sanitize and shared/redact are bundled with
// esbuild into bench/.corpus/.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS_DIR } from './corpus.mjs';
import { ROOT, median } from './runners.mjs';

const BUNDLE = join(CORPUS_DIR, 'redact-bundle.mjs');
export const REDACTION_TARGET = 0.2;

const CHILD = `
import { readFileSync } from 'node:fs';
const [bundle, file, runs] = process.argv.slice(1);
const { Sanitizer, Redactor } = await import(bundle);
const input = readFileSync(file);
const CHUNK = 1 << 20;
function once(redact) {
  const s = new Sanitizer({ reuseOutputBuffer: true });
  const r = redact ? new Redactor() : null;
  let text = 0;
  for (let i = 0; i < input.length; i += CHUNK) {
    const t = s.write(input.subarray(i, Math.min(i + CHUNK, input.length)));
    if (r) r.writeTo(t, (piece) => (text += piece.length));
    else text += t.length;
  }
  const t = s.end();
  if (r) {
    r.writeTo(t, (piece) => (text += piece.length));
    text += r.end().length;
  } else text += t.length;
  return { text, found: r ? r.report().count : 0 };
}
once(false); once(true); once(false); once(true);
const plain = [], redacted = [];
let info;
for (let k = 0; k < Number(runs); k++) {
  for (const redact of k % 2 ? [true, false] : [false, true]) {
    const t = process.cpuUsage();
    const res = once(redact);
    const used = process.cpuUsage(t);
    (redact ? redacted : plain).push((used.user + used.system) / 1e3);
    if (redact) info = res;
  }
}
process.stdout.write(JSON.stringify({ plain, redacted, ...info }));
`;

export async function bundleRedaction() {
  await build({
    stdin: { contents: "export { Sanitizer } from './shared/sanitize/index.ts';\nexport { Redactor } from './shared/redact/index.ts';\n", resolveDir: ROOT, loader: 'ts' },
    bundle: true, format: 'esm', platform: 'neutral', target: 'node20', outfile: BUNDLE, logLevel: 'warning',
  });
  return BUNDLE;
}

/** Resolves { sanitizeMs, pipelineMs, stageMs, ratio, found } for one input file. */
export function measureRedaction(file, runs) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, BUNDLE, file, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) return { error: (r.stderr || `exit ${r.status}`).trim().split('\n')[0] };
  const out = JSON.parse(r.stdout);
  const sanitizeMs = median(out.plain);
  const pipelineMs = median(out.redacted);
  // Per round, so drift between rounds does not land on one side.
  const paired = out.redacted.map((ms, i) => ms / out.plain[i] - 1).sort((a, b) => a - b);
  return { sanitizeMs, pipelineMs, stageMs: pipelineMs - sanitizeMs, ratio: median(paired), found: out.found };
}

// Adversarial lines for the stage alone: keys (and near-keys) repeated on one line or on every
// line, so every rule's pattern, the key block reader and the look-alike path run as often as
// they can. Growth from 1 to 4 MiB should stay near 1 (linear).
const ADVERSARIAL_UNITS = {
  'eyJ.': 'eyJa.', 'a://b:c@': 'a://b:c@', '@': 'x@', 'BEGIN lines': '-----BEGIN PRIVATE KEY-----\n', 'key lines': `${'AAAA'.repeat(16)}\n`,
  'END lines': '-----END RSA PRIVATE KEY-----\n', 'sk-': 'sk-', 'Authorization:': 'Authorization: ', 'ghp_': 'ghp_', '\u27e6': '\u27e6',
  'token=': 'token=', 'x.password': 'x.password', '"secret":"': '"secret":"', 'TOKEN lines': 'X-Auth-TOKEN: a1b2c3d4e5\n',
};

const LINEAR_CHILD = `
const [bundle, unitsJson] = process.argv.slice(1);
const { Redactor } = await import(bundle);
const units = JSON.parse(unitsJson);
const enc = new TextEncoder();
const out = {};
for (const [name, u] of Object.entries(units)) {
  const ms = [];
  for (const mb of [1, 4]) {
    const text = enc.encode(u.repeat(Math.ceil((mb << 20) / u.length)));
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t = process.cpuUsage();
      const r = new Redactor();
      for (let i = 0; i < text.length; i += 65536) r.writeTo(text.subarray(i, i + 65536), () => {});
      r.end();
      const used = process.cpuUsage(t);
      best = Math.min(best, (used.user + used.system) / 1e3);
    }
    ms.push(best);
  }
  out[name] = { ms1: ms[0], ms4: ms[1], growth: ms[1] / ms[0] / 4 };
}
process.stdout.write(JSON.stringify(out));
`;

/** The stage on adversarial inputs of 1 and 4 MiB (CPU ms): { name: { ms1, ms4, growth } }. */
export function measureRedactionLinearity() {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', LINEAR_CHILD, BUNDLE, JSON.stringify(ADVERSARIAL_UNITS)], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 600_000 });
  if (r.status !== 0) return { error: (r.stderr || `exit ${r.status}`).trim().split('\n')[0] };
  return JSON.parse(r.stdout);
}
