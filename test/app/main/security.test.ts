// Electron security checklist (https://www.electronjs.org/docs/latest/tutorial/security), item by
// item, against the options and handlers app/main applies. `electron` is mocked (no binary here).
import { describe, expect, it, vi } from 'vitest';
import { makeContents, makeSession } from './electron-mock';

vi.mock('electron', () => ({}));
const { windowPreferences, hardenSession, hardenContents, isAllowedUrl, senderOf } = await import('../../../app/main/security');

describe('Electron security checklist', () => {
  const prefs = windowPreferences('/app/preload.cjs', true);

  it('#2 nodeIntegration off everywhere; #3 contextIsolation on; #4 sandbox on', () => {
    expect(prefs).toMatchObject({ nodeIntegration: false, nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false, contextIsolation: true, sandbox: true });
  });

  it('#6 webSecurity on; #8 no insecure content; #9 no experimental features; #10 no Blink features; #11/#12 no webview', () => {
    expect(prefs).toMatchObject({ webSecurity: true, allowRunningInsecureContent: false, experimentalFeatures: false, webviewTag: false });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });

  it('devtools closed when packaged, available in development', () => {
    expect(prefs.devTools).toBe(false);
    expect(windowPreferences('/p', false).devTools).toBe(true);
  });

  it('#5 every permission request and check is refused; devices too; downloads cancelled', () => {
    const s = makeSession();
    hardenSession(s as never);
    const answers: boolean[] = [];
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'fullscreen']) s.handlers.request({}, p, (ok: boolean) => answers.push(ok));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(s.handlers.check({}, 'clipboard-read')).toBe(false);
    expect(s.handlers.device({})).toBe(false);
    const item = { cancel: vi.fn() };
    const ev = { preventDefault: vi.fn() };
    s.emit('will-download', ev, item);
    expect(ev.preventDefault).toHaveBeenCalled();
    expect(item.cancel).toHaveBeenCalled();
    for (const name of ['select-hid-device', 'select-serial-port', 'select-usb-device']) {
      const cb = vi.fn();
      const e = { preventDefault: vi.fn() };
      if (name === 'select-serial-port') s.emit(name, e, [], {}, cb);
      else s.emit(name, e, {}, cb);
      expect(e.preventDefault).toHaveBeenCalled();
      expect(cb).toHaveBeenCalledWith('');
    }
  });

  it('#1 only secure content, #18 our scheme instead of file://: no request leaves for the network', () => {
    const s = makeSession();
    hardenSession(s as never);
    const verdict = (url: string) => {
      let cancel: boolean | undefined;
      s.handlers.beforeRequest({ url }, (r: { cancel: boolean }) => (cancel = r.cancel));
      return cancel;
    };
    expect(verdict('airlock://app/index.html')).toBe(false);
    expect(verdict('airlock://prompt/prompt.js')).toBe(false);
    expect(verdict('data:image/png;base64,AA==')).toBe(false);
    for (const u of ['https://evil.example/', 'http://localhost:3000/', 'file:///etc/passwd', 'ws://x/', 'airlock://evil/x', 'airlock://appx/']) expect(verdict(u)).toBe(true);
    expect(isAllowedUrl('airlock://app.evil/')).toBe(false);
  });

  it('#13 navigation refused; #14 window.open denied; #12 webview refused; #15 nothing opened externally', () => {
    const c = makeContents();
    hardenContents(c as never);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']) {
      const e = { preventDefault: vi.fn() };
      c.emit(name, e, {}, {});
      expect(e.preventDefault, name).toHaveBeenCalled();
    }
    expect(c.windowOpenHandler!({ url: 'https://evil.example' })).toEqual({ action: 'deny' });
    expect(c.windowOpenHandler!({ url: 'airlock://app/index.html' })).toEqual({ action: 'deny' });
  });

  it('#16 a current Electron (45 or later)', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
    expect(Number(pkg.devDependencies.electron.split('.')[0])).toBeGreaterThanOrEqual(45);
  });

  it('#17 the IPC sender: window id, top frame, origin of the frame', () => {
    const c = makeContents();
    const win = (wc: unknown) => (wc === c ? 3 : null);
    const frame = { url: 'airlock://app/index.html' };
    c.mainFrame = frame;
    expect(senderOf({ sender: c as never, senderFrame: frame }, win as never)).toEqual({ windowId: 3, origin: 'airlock://app', mainFrame: true });
    expect(senderOf({ sender: c as never, senderFrame: { url: 'https://evil.example/x' } }, win as never)).toEqual({ windowId: 3, origin: 'https://evil.example', mainFrame: false });
    expect(senderOf({ sender: makeContents() as never, senderFrame: null }, win as never)).toEqual({ windowId: null, origin: '', mainFrame: false });
  });
});
