// Electron main process: thin glue between Electron and the plain-Node services in app/services.
// Every security-relevant choice is in security.ts (checklist numbers there) or named below.
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, protocol, session, type WebContents } from 'electron';
import { join } from 'node:path';
import { Vault } from '../vault';
import { createAppServices, type AppServices } from '../services/bridge/app-services';
import { buildDemoVault } from '../services/import/demo';
import { importFile } from '../services/import/importer';
import { PROMPT_CHANNEL, VIEWER_CHANNEL } from '../preload/wire';
import { chooseVault, parseAppOptions } from './options';
import { APP_SCHEME, PROMPT_ORIGIN, PROMPT_URL, serveSchemeRequest, VIEWER_ORIGIN, VIEWER_URL } from './scheme';
import { hardenContents, hardenSession, senderOf, windowPreferences } from './security';

/** dist/app/main.cjs sits beside the preloads; the renderer and prompt builds are one level up. */
const DIST = join(__dirname, '..');
const ROOTS = { app: join(DIST, 'renderer'), prompt: join(DIST, 'prompt') };
const PRELOAD_VIEWER = join(__dirname, 'preload-viewer.cjs');
const PRELOAD_PROMPT = join(__dirname, 'preload-prompt.cjs');
const ASSETS = app.isPackaged ? join(process.resourcesPath, 'assets') : join(DIST, '..', 'assets');

const windows = new Map<number, 'viewer' | 'prompt'>();
const promptWindows = new Map<string, BrowserWindow>();
let services: AppServices | null = null;

// A private profile (tests, several independent instances): must be set before ready.
if (process.env.AIRLOCK_USER_DATA) app.setPath('userData', process.env.AIRLOCK_USER_DATA);
// Checklist #4: sandbox every renderer (also set per window); must run before ready.
app.enableSandbox();
// Our scheme is standard + secure (a proper origin, like https) and nothing more: no CORS, no fetch.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false, stream: false, bypassCSP: false } }]);

/** Checklist #13/#14/#11/#12: every web contents ever created gets the navigation/window/webview policy. */
app.on('web-contents-created', (_event, contents) => hardenContents(contents));

function windowIdOf(wc: WebContents): number | null {
  const win = BrowserWindow.fromWebContents(wc);
  return win && windows.has(win.id) ? win.id : null;
}

function createViewerWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Airlock',
    backgroundColor: '#16181d',
    icon: join(ASSETS, 'icons', '512x512.png'),
    // Spelled out (also in windowPreferences) so electronegativity sees them at the window.
    webPreferences: { ...windowPreferences(PRELOAD_VIEWER, app.isPackaged), sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, disableBlinkFeatures: 'Auxclick' },
  });
  const id = win.id;
  windows.set(id, 'viewer');
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    windows.delete(id);
    void services?.windowClosed(id);
  });
  void win.loadURL(VIEWER_URL);
  return win;
}

function openPromptWindow(requestId: string, requesterWindowId: number): Promise<void> {
  const parent = BrowserWindow.fromId(requesterWindowId) ?? undefined;
  const win = new BrowserWindow({
    width: 660,
    height: 800,
    parent,
    modal: parent !== undefined,
    resizable: true,
    minimizable: false,
    title: 'Airlock — authorize raw byte access',
    show: false,
    webPreferences: { ...windowPreferences(PRELOAD_PROMPT, app.isPackaged), sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, disableBlinkFeatures: 'Auxclick' },
  });
  const id = win.id;
  windows.set(id, 'prompt');
  promptWindows.set(requestId, win);
  services!.prompts.attach(requestId, id);
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    windows.delete(id);
    promptWindows.delete(requestId);
    void services?.windowClosed(id);
  });
  return win.loadURL(PROMPT_URL);
}

async function openVault(): Promise<{ vault: Vault; demo: boolean }> {
  const options = parseAppOptions(process.argv, process.env);
  const dir = chooseVault(options, process.env);
  if (dir) return { vault: await Vault.open(dir, { create: options.vault !== null }), demo: false };
  // First start without a vault: the built-in demo vault, made in the user data dir (never in the app bundle).
  return { vault: await buildDemoVault(join(app.getPath('userData'), 'demo-vault'), join(ASSETS, 'samples', 'demo')), demo: true };
}

async function start(): Promise<void> {
  // A minimal menu: editing (copy/paste in text fields) and windows; none of the default menu's
  // reload, devtools or "learn more" (shell.openExternal) items.
  Menu.setApplicationMenu(Menu.buildFromTemplate([...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []), { role: 'editMenu' as const }, { role: 'windowMenu' as const }]));
  hardenSession(session.defaultSession);
  protocol.handle(APP_SCHEME, async (request) => {
    const r = await serveSchemeRequest(request.method, request.url, ROOTS);
    return new Response(r.body ? new Uint8Array(r.body) : null, { status: r.status, headers: r.headers });
  });
  const options = parseAppOptions(process.argv, process.env);
  const { vault, demo } = await openVault();
  services = createAppServices({
    vault,
    demo,
    version: app.getVersion(),
    origins: { viewer: VIEWER_ORIGIN, prompt: PROMPT_ORIGIN },
    windows: { kindOf: (id) => windows.get(id) ?? null },
    grantTtlMs: options.grantTtlMs,
    opener: { open: openPromptWindow, close: (requestId) => promptWindows.get(requestId)?.close() },
    async chooseFile(windowId) {
      const parent = BrowserWindow.fromId(windowId);
      const opts = { title: 'Open a raw transcript', properties: ['openFile' as const], filters: [{ name: 'Transcripts', extensions: ['bin', 'log', 'typescript', 'cast', 'txt', 'out'] }, { name: 'All files', extensions: ['*'] }] };
      const r = parent ? await dialog.showOpenDialog(parent, opts) : await dialog.showOpenDialog(opts);
      if (r.canceled || r.filePaths.length === 0) return null;
      return { path: r.filePaths[0] };
    },
    async chooseSavePath(windowId, suggestedName) {
      const parent = BrowserWindow.fromId(windowId);
      const opts = { title: 'Export', defaultPath: suggestedName };
      const r = parent ? await dialog.showSaveDialog(parent, opts) : await dialog.showSaveDialog(opts);
      return r.canceled || !r.filePath ? null : r.filePath;
    },
    writeClipboard: (text) => clipboard.writeText(text),
  });
  if (options.open) services.view.setOpen(await resolveOpen(services, options.open));
  // Checklist #17: every IPC message's sender is checked by the dispatcher (window, frame, origin).
  ipcMain.handle(VIEWER_CHANNEL, (event, method: unknown, args: unknown) => services!.dispatcher.call(senderOf(event, windowIdOf), method, args));
  ipcMain.handle(PROMPT_CHANNEL, (event, method: unknown, args: unknown) => services!.dispatcher.callPrompt(senderOf(event, windowIdOf), method, args));
  createViewerWindow();
}

/** `airlock open FILE|REF`: a reference is opened as is; a file is imported first. */
async function resolveOpen(s: AppServices, target: string): Promise<string | null> {
  if (/^restricted:sha256:[0-9a-f]{64}$/.test(target)) return target;
  try {
    const { record } = await importFile(s.vault, s.audit, target);
    await s.view.refresh();
    return Object.values(record.raw).map((r) => `restricted:sha256:${r.sha256}`)[0] ?? null;
  } catch (err) {
    dialog.showErrorBox('Airlock', `Could not import ${target}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

// One instance: a second `airlock open` hands its target to the running app and exits.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => {
    const target = parseAppOptions(argv, {}).open;
    const viewer = [...windows].find(([, k]) => k === 'viewer');
    const win = viewer ? BrowserWindow.fromId(viewer[0]) : null;
    if (services && target) void resolveOpen(services, target).then((ref) => services!.view.setOpen(ref)).then(() => win?.reload());
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('window-all-closed', () => app.quit());
  // Grants end before the app does, so each one's reads are audited (`raw.opened`, `raw.revoked`).
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !services) return;
    event.preventDefault();
    quitting = true;
    void services.shutdown().finally(() => app.quit());
  });
  app.whenReady().then(start).catch((err: unknown) => {
    dialog.showErrorBox('Airlock could not start', err instanceof Error ? err.message : String(err));
    app.exit(1);
  });
}
