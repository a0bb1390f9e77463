// The e2e harness: the real renderer build (dist/renderer) and prompt page (dist/prompt) in Debian
// Chromium, with the real main-side services (app/services) behind `window.airlock` and
// `window.airlockPrompt`. Playwright stands in for Electron: a route serves both builds through
// the very scheme handler main uses (same CSP headers, traversal rules and MIME types) and refuses
// every other request; one binding stands in for ipcRenderer.invoke and reaches the same
// dispatcher, which checks the calling page (window id), frame and origin as main does; an init
// script builds the same allowlisted API objects the preloads expose.
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveSchemeRequest } from '../app/main/scheme';
import { PROMPT_METHODS, VIEWER_METHODS } from '../shared/bridge/methods';
import { createAppServices, type AppServices } from '../app/services/bridge/app-services';
import type { Caller } from '../app/services/bridge/dispatcher';
import { buildDemoVault } from '../app/services/import/demo';
import { Vault } from '../app/vault';

/** The repository (AIRLOCK_REPO when the harness runs bundled, as in `npm run preview`). */
export const REPO = process.env.AIRLOCK_REPO ?? resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SAMPLES = join(REPO, 'assets/samples/demo');
/** Origins the harness serves the two builds from (they play airlock://app and airlock://prompt; *.localhost is a secure context, as our scheme is). */
export const APP_ORIGIN = 'http://app.localhost';
export const PROMPT_ORIGIN = 'http://prompt.localhost';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const VIEWER_ID = 1;

export interface LaunchOptions {
  /** Vault directory; built as the demo vault when it holds no vault yet. */
  readonly vault: string;
  readonly headed?: boolean;
  /** Grant lifetime (default 15 minutes). */
  readonly grantTtlMs?: number;
  readonly promptTimeoutMs?: number;
  /** The prompt's first back-off wait after a denial (default 10 s, as in the app). */
  readonly promptBackoffBaseMs?: number;
  /** Viewport of the viewer page. */
  readonly viewport?: { width: number; height: number };
  /**
   * What "Open file…" shows when no test set the next file (setNextOpenFile): the preview's
   * picker (e2e/file-picker.ts). Without it the dialog answers "cancelled".
   */
  readonly pickFile?: (context: BrowserContext) => Promise<{ path: string } | null>;
}

export interface HarnessApp {
  /** The viewer page (`window.airlock`). */
  readonly page: Page;
  readonly context: BrowserContext;
  readonly services: AppServices;
  /** Resolves with the next prompt page main opens. */
  nextPrompt(): Promise<Page>;
  /** Text the app put on the clipboard, in order. */
  readonly clipboard: string[];
  /** What the next "Open file…" dialog answers. */
  setNextOpenFile(path: string | null, timingPath?: string): void;
  /** Every bridge answer a viewer page received (for "no raw byte reached the page" checks). */
  readonly answers: { method: string; wire: unknown }[];
  /** Opens another viewer window (its own window id, its own grants). */
  openViewer(): Promise<Page>;
  /** Actions in the vault's audit log, in order. */
  auditActions(): Promise<string[]>;
  close(): Promise<void>;
}

/** Fixed contract: the real renderer in Chromium with the real services, opened on `vault`. */
export async function launchApp(options: LaunchOptions): Promise<HarnessApp> {
  for (const need of ['dist/renderer/index.html', 'dist/prompt/index.html']) {
    if (!existsSync(join(REPO, need))) throw new Error(`e2e harness: ${need} is missing; run npm run build first`);
  }
  const { vault, demo } = await openOrBuildVault(options.vault);
  // Playwright hides scrollbars in headless Chromium; Electron shows them, and so must the tests
  // (the text list's sideways bar is how a long line says it goes on).
  const browser: Browser = await chromium.launch({ executablePath: process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: !options.headed, ignoreDefaultArgs: ['--hide-scrollbars'] });
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1400, height: 900 }, acceptDownloads: false, serviceWorkers: 'block', permissions: [] });
  const kinds = new Map<number, 'viewer' | 'prompt'>();
  const pageIds = new Map<Page, number>();
  const promptPages = new Map<string, Page>();
  const promptWaiters: ((p: Page) => void)[] = [];
  const promptQueue: Page[] = [];
  const clipboard: string[] = [];
  const answers: { method: string; wire: unknown }[] = [];
  let nextId = 100;
  let nextFile: { path: string; timingPath?: string } | null = null;
  const exportDir = await mkdtemp(join(tmpdir(), 'airlock-e2e-export-'));

  const services: AppServices = createAppServices({
    vault,
    demo,
    version: 'e2e',
    origins: { viewer: APP_ORIGIN, prompt: PROMPT_ORIGIN },
    windows: { kindOf: (id) => kinds.get(id) ?? null },
    grantTtlMs: options.grantTtlMs,
    promptTimeoutMs: options.promptTimeoutMs,
    promptBackoffBaseMs: options.promptBackoffBaseMs,
    opener: {
      async open(requestId) {
        const page = await context.newPage();
        await page.setViewportSize({ width: 660, height: 780 }); // main's prompt window size
        const id = nextId++;
        kinds.set(id, 'prompt');
        pageIds.set(page, id);
        promptPages.set(requestId, page);
        services.prompts.attach(requestId, id);
        page.on('close', () => {
          kinds.delete(id);
          promptPages.delete(requestId);
          void services.windowClosed(id);
        });
        await page.goto(`${PROMPT_ORIGIN}/index.html`);
        const waiter = promptWaiters.shift();
        if (waiter) waiter(page);
        else promptQueue.push(page);
      },
      close(requestId) {
        const page = promptPages.get(requestId);
        if (page && !page.isClosed()) void page.close().catch(() => undefined);
      },
    },
    async chooseFile() {
      const f = nextFile;
      nextFile = null;
      return f ?? (options.pickFile ? options.pickFile(context) : null);
    },
    chooseSavePath: async (_w, name) => join(exportDir, name),
    writeClipboard: (text) => void clipboard.push(text),
  });

  // Everything is served from the builds through main's scheme handler; nothing else loads.
  await context.route('**/*', async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    const host = url.origin === APP_ORIGIN ? 'app' : url.origin === PROMPT_ORIGIN ? 'prompt' : null;
    if (!host) return route.abort('blockedbyclient');
    const r = await serveSchemeRequest(req.method(), `airlock://${host}${url.pathname}${url.search}`, { app: join(REPO, 'dist/renderer'), prompt: join(REPO, 'dist/prompt') });
    return route.fulfill({ status: r.status, headers: r.headers, body: r.body ?? '' });
  });

  // The stand-in for ipcRenderer.invoke: main learns the caller from Playwright, not from the page.
  await context.exposeBinding('__airlockIpc', async (source, channel: unknown, method: unknown, args: unknown) => {
    const id = pageIds.get(source.page) ?? null;
    let origin = '';
    try {
      origin = new URL(source.frame.url()).origin;
    } catch {
      origin = '';
    }
    const caller: Caller = { windowId: id, origin, mainFrame: source.frame === source.page.mainFrame() };
    const wire = channel === 'prompt' ? await services.dispatcher.callPrompt(caller, method, args) : await services.dispatcher.call(caller, method, args);
    if (channel !== 'prompt') answers.push({ method: String(method), wire });
    // One JSON string crosses Playwright's protocol: its own per-object serializer spent hundreds of
    // ms on a page of spans or text lines, on the event loop every other call's answer waits on.
    return JSON.stringify(encodeBytes(wire));
  });
  await context.addInitScript({ content: initScript() });

  let nextViewer = VIEWER_ID;
  const openViewer = async (): Promise<Page> => {
    const p = await context.newPage();
    const id = nextViewer++;
    kinds.set(id, 'viewer');
    pageIds.set(p, id);
    p.on('close', () => {
      kinds.delete(id);
      void services.windowClosed(id);
    });
    await p.goto(`${APP_ORIGIN}/index.html`);
    return p;
  };
  const page = await openViewer();

  return {
    page,
    context,
    services,
    clipboard,
    answers,
    openViewer,
    nextPrompt: () => {
      const queued = promptQueue.shift();
      return queued ? Promise.resolve(queued) : new Promise<Page>((r) => promptWaiters.push(r));
    },
    setNextOpenFile(path, timingPath) {
      nextFile = path ? { path, ...(timingPath ? { timingPath } : {}) } : null;
    },
    async auditActions() {
      return (await services.audit.list()).map((l) => ('entry' in l ? String(l.entry.action) : 'unreadable'));
    },
    async close() {
      await services.shutdown();
      await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await rm(exportDir, { recursive: true, force: true });
    },
  };
}

/** A fresh demo vault in a private temp dir (for specs and `npm run preview`). */
export async function tempDemoVault(): Promise<{ dir: string; vault: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-e2e-'));
  await chmod(dir, 0o700);
  const vault = join(dir, 'vault');
  await buildDemoVault(vault, SAMPLES);
  return { dir, vault, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function openOrBuildVault(dir: string): Promise<{ vault: Vault; demo: boolean }> {
  if (existsSync(join(dir, 'records'))) {
    const vault = await Vault.open(dir);
    const demo = (await vault.listRecords()).records.some((r) => (r.metadata as { demo_sample?: unknown } | undefined)?.demo_sample === true);
    return { vault, demo };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return { vault: await buildDemoVault(dir, SAMPLES), demo: true };
}

/** Byte arrays cross the binding as `{ $bytes: base64 }` (the page turns them back into Uint8Array). */
function encodeBytes(v: unknown): unknown {
  if (v instanceof Uint8Array) return { $bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (Array.isArray(v)) return v.map(encodeBytes);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encodeBytes(x)]));
  return v;
}

/** What the preloads do, for the harness: one frozen object, one function per allowlisted method. */
function initScript(): string {
  return `(() => {
  const viewer = ${JSON.stringify(VIEWER_METHODS)};
  const prompt = ${JSON.stringify(PROMPT_METHODS)};
  const decode = (v) => {
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === 'object') {
      if (typeof v.$bytes === 'string' && Object.keys(v).length === 1) {
        const s = atob(v.$bytes); const b = new Uint8Array(s.length);
        for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
        return b;
      }
      const o = {}; for (const k of Object.keys(v)) o[k] = decode(v[k]); return o;
    }
    return v;
  };
  const make = (channel, methods) => {
    const api = Object.create(null);
    for (const m of methods) api[m] = async (...args) => {
      const text = await window.__airlockIpc(channel, m, args);
      const wire = typeof text === 'string' ? JSON.parse(text) : null;
      if (wire && wire.ok === true) return decode(wire.value);
      throw new Error('[' + ((wire && wire.code) || 'internal') + '] ' + ((wire && wire.message) || 'no answer'));
    };
    return Object.freeze(api);
  };
  if (location.origin === ${JSON.stringify(APP_ORIGIN)}) Object.defineProperty(window, 'airlock', { value: make('viewer', viewer), enumerable: true });
  if (location.origin === ${JSON.stringify(PROMPT_ORIGIN)}) Object.defineProperty(window, 'airlockPrompt', { value: make('prompt', prompt), enumerable: true });
})();`;
}
