// Runs @doyensec/electronegativity over app/ (part of `npm run lint`). A HIGH or MEDIUM finding
// fails the run unless the flagged line, or one of the three lines above it, carries
// `electronegativity-justified: <CHECK_NAME> <why>` — the justification sits at the code it covers.
// `node scripts/electronegativity.mjs [DIR]` scans DIR instead of app/ (tests use a fixture).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const input = process.argv[2] ? join(process.cwd(), process.argv[2]) : join(root, 'app');
const shown = process.argv[2] ?? 'app';
const out = mkdtempSync(join(tmpdir(), 'airlock-eneg-'));
const csv = join(out, 'findings.csv');
try {
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  const r = spawnSync(process.execPath, [join(root, 'node_modules/@doyensec/electronegativity/dist/index.js'), '-i', input, '-o', csv, '-r', '-v', 'false', '-e', electronVersion], { cwd: root, encoding: 'utf8' });
  let text;
  try {
    text = readFileSync(csv, 'utf8');
  } catch {
    console.error(`electronegativity did not run (exit ${r.status}):\n${r.stderr || r.stdout}`);
    rmSync(out, { recursive: true, force: true }); // process.exit skips the finally below
    process.exit(1);
  }
  const rows = text.trim().split('\n').slice(1).map(parseCsvLine);
  const failures = [];
  let justified = 0;
  for (const [check, severity, confidence, file, location] of rows) {
    if (severity !== 'HIGH' && severity !== 'MEDIUM') continue;
    // Global checks (no file) cannot be justified at a line: fix them.
    if (!file || file === 'N/A') {
      failures.push(`${shown}: ${check} (${severity}, ${confidence}, global)`);
      continue;
    }
    const line = Number(location.split(':')[0]);
    const lines = readFileSync(join(input, file), 'utf8').split('\n');
    const near = lines.slice(Math.max(0, line - 4), line).join('\n');
    if (new RegExp(`electronegativity-justified: ${check}\\b`).test(near)) {
      justified++;
      continue;
    }
    failures.push(`${shown}/${file}:${location} ${check} (${severity}, ${confidence})`);
  }
  if (failures.length > 0) {
    console.error(`electronegativity: ${failures.length} unjustified high/medium finding(s):\n  ${failures.join('\n  ')}\n(fix them, or justify at the code: // electronegativity-justified: CHECK_NAME why)`);
    rmSync(out, { recursive: true, force: true }); // process.exit skips the finally below
    process.exit(1);
  }
  console.log(`electronegativity: ${rows.length} finding(s), none high/medium unjustified (${justified} justified at the code)`);
} finally {
  rmSync(out, { recursive: true, force: true });
}

function parseCsvLine(line) {
  const cells = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cur += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      cells.push(cur.trim());
      cur = '';
    } else {
      cur += c;
    }
  }
  cells.push(cur.trim());
  return cells;
}
