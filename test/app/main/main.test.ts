// app/main/main.ts against a fake electron: what it sets up before and after `ready`, the windows
// it opens and the IPC handlers' sender checks and refusals.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildDemoVault } from '../../../app/services/import/demo';
import { makeContents, makeElectron, type FakeWindow } from './electron-mock';

const fake = vi.hoisted(() => ({ current: null as ReturnType<typeof import('./electron-mock').makeElectron> | null }));
vi.mock('electron', () => fake.current!.electron);

describe('Electron main', () => {
  let dir: string;
  let e: ReturnType<typeof makeElectron>;
  let viewer: FakeWindow;
  const frameOf = (w: FakeWindow, url: string) => {
    const frame = { url };
    w.webContents.mainFrame = frame;
    return { sender: w.webContents, senderFrame: frame };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-main-'));
    await chmod(dir, 0o700);
    await buildDemoVault(join(dir, 'vault'), join(__dirname, '../../../assets/samples/demo'));
    process.env.AIRLOCK_VAULT = join(dir, 'vault');
    (process as { resourcesPath?: string }).resourcesPath = dir; // packaged layout: <resources>/assets
    e = makeElectron();
    fake.current = e;
    await import('../../../app/main/main');
  });
  afterAll(async () => {
    delete process.env.AIRLOCK_VAULT;
    await rm(dir, { recursive: true, force: true });
  });

  it('before ready: sandbox for all renderers, one privileged standard+secure scheme, single instance lock', () => {
    const names = e.calls.map((c) => c.name);
    expect(names).toContain('app.enableSandbox');
    expect(names).toContain('app.requestSingleInstanceLock');
    const reg = e.calls.find((c) => c.name === 'protocol.registerSchemesAsPrivileged')!.args[0];
    expect(reg).toEqual([{ scheme: 'airlock', privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false, stream: false, bypassCSP: false } }]);
    expect(e.appEvents.listenerCount('web-contents-created')).toBe(1);
    expect(e.appEvents.listenerCount('second-instance')).toBe(1);
  });

  it('every created web contents is hardened (navigation, window.open, webview)', () => {
    const c = makeContents();
    e.appEvents.emit('web-contents-created', {}, c);
    expect(c.windowOpenHandler!({ url: 'https://x' })).toEqual({ action: 'deny' });
    expect(c.listenerCount('will-navigate')).toBe(1);
    expect(c.listenerCount('will-attach-webview')).toBe(1);
  });

  it('after ready: scheme handler, session policy, IPC handlers, one sandboxed viewer window', async () => {
    e.ready();
    for (let i = 0; i < 100 && e.windows.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(e.calls.some((c) => c.name === 'protocol.handle' && c.args[0] === 'airlock')).toBe(true);
    expect([...e.ipcHandlers.keys()].sort()).toEqual(['airlock-prompt:call', 'airlock:call']);
    viewer = e.windows[0];
    expect(viewer.loaded).toEqual(['airlock://app/index.html']);
    const prefs = viewer.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true, devTools: false });
    expect(String(prefs.preload)).toMatch(/preload-viewer\.cjs$/);
    const menu = e.calls.find((c) => c.name === 'Menu.setApplicationMenu')!.args[0] as { template: { role: string }[] };
    expect(menu.template.map((m) => m.role)).toEqual(expect.arrayContaining(['editMenu', 'windowMenu']));
    expect(JSON.stringify(menu.template)).not.toMatch(/viewMenu|help|toggleDevTools|reload/i);
    expect((e.electron.session.defaultSession as unknown as { handlers: Record<string, unknown> }).handlers.request).toBeTypeOf('function');
  });

  it('the scheme handler answers with the CSP and refuses non-GET', async () => {
    const handler = e.calls.find((c) => c.name === 'protocol.handle')!.args[1] as (r: { method: string; url: string }) => Promise<Response>;
    const post = await handler({ method: 'POST', url: 'airlock://app/index.html' });
    expect(post.status).toBe(405);
    expect(post.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('IPC: calls from the viewer frame work; other senders, frames and origins are refused', async () => {
    const call = e.ipcHandlers.get('airlock:call')!;
    const ok = (await call(frameOf(viewer, 'airlock://app/index.html'), 'getVaultInfo', [])) as { ok: boolean; value: { windowId: number; demo: boolean } };
    expect(ok).toMatchObject({ ok: true, value: { windowId: viewer.id, demo: false } });
    const stranger = { sender: makeContents(), senderFrame: { url: 'airlock://app/index.html' } };
    expect(await call(stranger, 'listRecords', [])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await call({ sender: viewer.webContents, senderFrame: { url: 'airlock://app/x.html' } }, 'listRecords', [])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await call(frameOf(viewer, 'https://evil.example/'), 'listRecords', [])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await call(frameOf(viewer, 'airlock://prompt/index.html'), 'listRecords', [])).toMatchObject({ ok: false, code: 'forbidden' });
    expect(await call(frameOf(viewer, 'airlock://app/index.html'), 'getReport', ['../../etc/passwd'])).toMatchObject({ ok: false, code: 'bad-request' });
    const prompt = e.ipcHandlers.get('airlock-prompt:call')!;
    expect(await prompt(frameOf(viewer, 'airlock://app/index.html'), 'answerPrompt', [{ decision: 'approve', reason: 'x', confirm: '00000000' }])).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('requestRawAccess opens main\'s own modal prompt window with its own preload; it alone can approve', async () => {
    const call = e.ipcHandlers.get('airlock:call')!;
    const records = ((await call(frameOf(viewer, 'airlock://app/index.html'), 'listRecords', [])) as { value: { artifacts: { ref: string; sha256: string }[] }[] }).value;
    const art = records[0].artifacts[0];
    const pending = call(frameOf(viewer, 'airlock://app/index.html'), 'requestRawAccess', [art.ref, {}]) as Promise<{ ok: boolean; value: { state: string } }>;
    for (let i = 0; i < 100 && e.windows.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const pw = e.windows[1];
    expect(pw.loaded).toEqual(['airlock://prompt/index.html']);
    expect(pw.options).toMatchObject({ modal: true, parent: viewer });
    const prefs = pw.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(String(prefs.preload)).toMatch(/preload-prompt\.cjs$/);
    const prompt = e.ipcHandlers.get('airlock-prompt:call')!;
    // The prompt window cannot use the viewer channel.
    expect(await call(frameOf(pw, 'airlock://prompt/index.html'), 'listRecords', [])).toMatchObject({ ok: false, code: 'forbidden' });
    const view = (await prompt(frameOf(pw, 'airlock://prompt/index.html'), 'getPrompt', [])) as { ok: boolean; value: { artifact: { sha256: string } } };
    expect(view.value.artifact.sha256).toBe(art.sha256);
    expect(await prompt(frameOf(pw, 'airlock://prompt/index.html'), 'answerPrompt', [{ decision: 'approve', reason: 'review', confirm: art.sha256.slice(0, 8) }])).toMatchObject({ ok: true });
    expect((await pending).value.state).toBe('granted');
    // Closing the viewer ends its grants.
    viewer.close();
    await new Promise((r) => setTimeout(r, 50));
  });
});
