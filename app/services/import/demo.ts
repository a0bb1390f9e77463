import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog } from '../../audit';
import { newRecordId, Vault, type CaptureRecord } from '../../vault';
import { seedDemoRequests } from './demo-requests';
import { importFile } from './importer';
import { ingest, streamFields, type IngestEvent } from './ingest';

/** The demo transcripts shipped in `assets/samples/demo`, imported in this order. */
export const DEMO_FILES = ['build.log', 'session.typescript', 'deploy.cast', 'release-v3.cast'] as const;
/** A capture sample: `capture.json` + `stdout.bin` + `stderr.bin` (chunk schedule in the json). */
export const DEMO_CAPTURE_DIR = 'capture-npm-install';

/** The description of a recorded capture in `assets/samples/demo/<dir>/capture.json`. */
interface CaptureSample {
  argv: string[];
  cwd: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  started_at: string;
  /** Arrival order as the collector saw it: `[stream, length, t_ms]`. */
  chunks: [('stdout' | 'stderr'), number, number][];
}

/**
 * Builds the demo vault at `dir` from the samples in `samplesDir` (`assets/samples/demo`), once:
 * a vault that already has records is left alone. Called on first start without a vault
 * (Electron: under the user data directory; preview and e2e: a temp directory), never inside
 * the repository. Returns the opened vault.
 */
export async function buildDemoVault(dir: string, samplesDir: string, now: Date = new Date()): Promise<Vault> {
  const vault = await Vault.open(dir, { create: true });
  if ((await vault.listRecords()).records.length > 0) return vault;
  const audit = AuditLog.forVault(vault.root);
  let t = now.getTime() - 60 * 60_000;
  const next = (): Date => new Date((t += 7 * 60_000));
  const capture = await importCaptureSample(vault, audit, join(samplesDir, DEMO_CAPTURE_DIR), next());
  let buildLog: { sha256: string; size: number; bytes: Uint8Array } | null = null;
  for (const name of DEMO_FILES) {
    const path = join(samplesDir, name);
    const timing = name.endsWith('.typescript') ? path.replace(/\.typescript$/, '.timing') : undefined;
    const { record } = await importFile(vault, audit, path, { timingPath: timing, now: next(), demo: true });
    const raw = Object.values(record.raw)[0];
    if (name === 'build.log' && raw) buildLog = { ...raw, bytes: await readFile(path) };
  }
  // Two pending requests, as an agent would queue them, so the Requests view has work in it.
  if (buildLog) await seedDemoRequests(vault, audit, buildLog, capture.raw.stdout ?? null, new Date(t));
  return vault;
}

/** Stores a recorded capture sample as a capture record (stdout + stderr + chunk log). */
export async function importCaptureSample(vault: Vault, audit: AuditLog, dir: string, now: Date): Promise<CaptureRecord> {
  const sample = JSON.parse(await readFile(join(dir, 'capture.json'), 'utf8')) as CaptureSample;
  const files = { stdout: await readFile(join(dir, 'stdout.bin')), stderr: await readFile(join(dir, 'stderr.bin')) };
  async function* events(): AsyncGenerator<IngestEvent> {
    const pos = { stdout: 0, stderr: 0 };
    for (const [stream, length, tMs] of sample.chunks) {
      const bytes = files[stream].subarray(pos[stream], pos[stream] + length);
      pos[stream] += bytes.length;
      yield { stream, bytes, tMs };
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      if (pos[stream] < files[stream].length) yield { stream, bytes: files[stream].subarray(pos[stream]), tMs: sample.duration_ms };
    }
  }
  const result = await ingest(vault, ['stdout', 'stderr'], events(), true);
  const command = sample.argv.join(' ');
  const fields = streamFields(result);
  const record: CaptureRecord = {
    id: newRecordId(now),
    created_at: now.toISOString(),
    ...fields,
    kind: 'capture',
    record_version: 1,
    command,
    exit_code: sample.exit_code,
    metadata: {
      command,
      argv: sample.argv,
      cwd: sample.cwd,
      started_at: now.toISOString(),
      duration_ms: sample.duration_ms,
      exit_code: sample.exit_code,
      signal: sample.signal,
      truncated: false,
      bytes: { stdout: files.stdout.length, stderr: files.stderr.length },
      demo_sample: true,
    },
    chunks: result.chunks,
  };
  try {
    await vault.putRecord(JSON.parse(JSON.stringify(record)) as CaptureRecord, {
      action: 'capture.stored',
      audit,
      details: { raw: Object.fromEntries(Object.entries(record.raw).map(([k, v]) => [k, { sha256: v.sha256, size: v.size }])), demo: true },
    });
  } finally {
    await result.release();
  }
  return record;
}

/** Whether `dir` holds the demo samples (for a clear error when assets are missing). */
export async function hasDemoSamples(samplesDir: string): Promise<boolean> {
  try {
    const names = await readdir(samplesDir);
    return DEMO_FILES.every((n) => names.includes(n));
  } catch {
    return false;
  }
}

