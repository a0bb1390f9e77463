// Test environment for the bridge services: a fresh demo vault in a temp dir, the real services,
// a prompt opener that records what main opened, and a window registry the test controls.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDemoVault } from '../../../../app/services/import/demo';
import { createAppServices, type AppServices } from '../../../../app/services/bridge/app-services';
import type { Caller } from '../../../../app/services/bridge/dispatcher';
import type { ArtifactFactory } from '../../../../app/services/bridge/artifact-port';
import type { BridgeWire } from '../../../../shared/bridge/contract';

export const SAMPLES = join(__dirname, '../../../../assets/samples/demo');
export const VIEWER_ORIGIN = 'airlock://app';
export const PROMPT_ORIGIN = 'airlock://prompt';

/** A marker planted inside an OSC 52 payload: the sanitized text never holds it. */
export const MARKER = 'AIRLOCK-MARKER-7f1c2d9e';

export interface Env {
  dir: string;
  services: AppServices;
  opened: string[];
  closed: string[];
  windows: Map<number, 'viewer' | 'prompt'>;
  viewer(id?: number): Caller;
  prompt(id: number): Caller;
  call<T = unknown>(caller: Caller, method: string, ...args: unknown[]): Promise<BridgeWire<T>>;
  /** What the next "Open file…" dialog answers. */
  setNextOpenFile(path: string): void;
  ok<T = unknown>(caller: Caller, method: string, ...args: unknown[]): Promise<T>;
  /** The marker artifact's ref (plain file with MARKER in an OSC 52 payload). */
  markerRef: string;
  markerSha: string;
  markerSize: number;
  actions(): Promise<string[]>;
  close(): Promise<void>;
}

export async function makeEnv(opts: { grantTtlMs?: number; artifactService?: ArtifactFactory; promptTimeoutMs?: number } = {}): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-bridge-'));
  await chmod(dir, 0o700);
  const vault = await buildDemoVault(join(dir, 'vault'), SAMPLES);
  const opened: string[] = [];
  const closed: string[] = [];
  const windows = new Map<number, 'viewer' | 'prompt'>([[1, 'viewer'], [2, 'viewer']]);
  let nextPromptWindow = 100;
  let files: { path: string }[] = [];
  const services: AppServices = createAppServices({
    vault,
    demo: true,
    version: 'test',
    origins: { viewer: VIEWER_ORIGIN, prompt: PROMPT_ORIGIN },
    windows: { kindOf: (id) => windows.get(id) ?? null },
    artifactService: opts.artifactService,
    grantTtlMs: opts.grantTtlMs,
    promptTimeoutMs: opts.promptTimeoutMs,
    opener: {
      async open(requestId) {
        opened.push(requestId);
        const id = nextPromptWindow++;
        windows.set(id, 'prompt');
        services.prompts.attach(requestId, id);
      },
      close(requestId) {
        closed.push(requestId);
      },
    },
    chooseFile: async () => files.shift() ?? null,
    chooseSavePath: async (_w, name) => join(dir, name),
    writeClipboard: () => undefined,
  });
  const markerFile = join(dir, 'marker.bin');
  await writeFile(markerFile, Buffer.from(`before \x1b]52;c;${MARKER}\x07 after \x1b[31mred\x1b[0m\n`));
  files = [{ path: markerFile }];
  const viewer = (id = 1): Caller => ({ windowId: id, origin: VIEWER_ORIGIN, mainFrame: true });
  // Prompt windows talk on the prompt channel, everything else on the viewer channel.
  const call = <T>(caller: Caller, method: string, ...args: unknown[]) =>
    (caller.windowId !== null && windows.get(caller.windowId) === 'prompt' ? services.dispatcher.callPrompt(caller, method, args) : services.dispatcher.call(caller, method, args)) as Promise<BridgeWire<T>>;
  const imported = await call<{ artifacts: { ref: string; sha256: string; size: number }[] }>(viewer(), 'openFile');
  if (!imported.ok) throw new Error(imported.message);
  const art = imported.value.artifacts[0];
  return {
    dir,
    services,
    opened,
    closed,
    windows,
    viewer,
    prompt: (id) => ({ windowId: id, origin: PROMPT_ORIGIN, mainFrame: true }),
    call,
    setNextOpenFile(path) {
      files = [{ path }];
    },
    async ok<T>(caller: Caller, method: string, ...args: unknown[]): Promise<T> {
      const r = await call<T>(caller, method, ...args);
      if (!r.ok) throw new Error(`[${r.code}] ${r.message}`);
      return r.value;
    },
    markerRef: art.ref,
    markerSha: art.sha256,
    markerSize: art.size,
    async actions() {
      const lines = await services.audit.list();
      return lines.map((l) => ('entry' in l ? String(l.entry.action) : 'bad'));
    },
    async close() {
      await services.shutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until main opened a prompt and returns its window id. */
export async function promptWindow(env: Env): Promise<number> {
  for (let i = 0; i < 200; i++) {
    for (const [id, kind] of env.windows) if (kind === 'prompt' && env.services.prompts.isPromptWindow(id)) return id;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no prompt opened');
}

/** Asks for raw access from `viewer` and approves it in the prompt; returns the grant id. */
export async function approve(env: Env, viewerId = 1, ref = env.markerRef, range?: [number, number]): Promise<string> {
  const outcome = env.ok<{ state: string; grant?: { id: string } }>(env.viewer(viewerId), 'requestRawAccess', ref, range ? { range } : {});
  const pw = await promptWindow(env);
  const sha = ref.slice('restricted:sha256:'.length);
  await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'incident 42 review', confirm: sha.slice(0, 8) });
  const o = await outcome;
  if (o.state !== 'granted' || !o.grant) throw new Error('not granted');
  return o.grant.id;
}

/** Every string and byte array in a value, concatenated, for "the marker never appears" checks. */
export function flatten(v: unknown): string {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1') + Buffer.from(v).toString('hex');
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(flatten).join('\n');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}:${flatten(x)}`).join('\n');
  return String(v);
}
