// Hardening of every window, web contents and session, with the Electron security checklist
// (https://www.electronjs.org/docs/latest/tutorial/security) numbered where each item is met.
// Tests: test/app/main/security.test.ts names each item again.
import type { Session, WebContents, WebPreferences } from 'electron';
import { APP_SCHEME } from './scheme';

/**
 * webPreferences of every window main opens. Checklist:
 * #2 Node.js integration off (also in workers and subframes);
 * #3 context isolation on;
 * #4 process sandboxing on (and app.enableSandbox() in main.ts);
 * #6 webSecurity on; #8 allowRunningInsecureContent off; #9 experimental features off;
 * #10 no enableBlinkFeatures (and Auxclick disabled);
 * #11/#12 no <webview> at all (webviewTag off; will-attach-webview refused in hardenContents);
 * devtools only in unpackaged builds.
 * The others: #1 only secure content and #18 a custom protocol instead of file:// (scheme.ts,
 * hardenSession), #7 CSP (scheme.ts), #16 a current Electron (45, package.json; the packaging
 * test checks the major), #19 fuses (scripts/fuses.cjs), #20 no Electron API exposed (preloads).
 */
export function windowPreferences(preload: string, packaged: boolean): WebPreferences {
  return {
    preload,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
    devTools: !packaged,
    disableBlinkFeatures: 'Auxclick',
  };
}

/**
 * Session policy. Checklist #5 handle session permission requests (every permission request and
 * check is refused; device, USB, HID and serial choices too); downloads are cancelled (nothing the
 * page links may land on disk); #1 only secure content: no request leaves for the network —
 * everything but our own scheme (data: images, devtools in development) is cancelled.
 */
export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.on('will-download', (event, item) => {
    event.preventDefault();
    item.cancel();
  });
  session.on('select-hid-device', (event, _details, callback) => {
    event.preventDefault();
    callback('');
  });
  session.on('select-serial-port', (event, _ports, _wc, callback) => {
    event.preventDefault();
    callback('');
  });
  session.on('select-usb-device', (event, _details, callback) => {
    event.preventDefault();
    callback('');
  });
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !isAllowedUrl(details.url) });
  });
}

/** URLs any window may load: our own scheme, data: images (CSP img-src), devtools' own pages in development. */
export function isAllowedUrl(url: string): boolean {
  return url.startsWith(`${APP_SCHEME}://app/`) || url.startsWith(`${APP_SCHEME}://prompt/`) || url.startsWith('data:') || url.startsWith('devtools://');
}

/**
 * Web contents policy, applied to every web contents that is created. Checklist #13 disable or
 * limit navigation (will-navigate, will-frame-navigate, will-redirect refused); #14 disable or
 * limit creation of new windows (setWindowOpenHandler denies everything); #12 <webview> refused;
 * #15 no shell.openExternal anywhere in the app (a link click is simply refused, never handed to
 * the OS).
 */
export function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-frame-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * Where an IPC message came from (checklist #17 validate the sender of all IPC messages): the
 * frame's origin, whether it is the top frame, and the id of the BrowserWindow the contents
 * belongs to. The dispatcher then checks these against the windows main created.
 */
export function senderOf(event: { sender: WebContents; senderFrame: { url: string } | null }, windowIdOf: (wc: WebContents) => number | null): { windowId: number | null; origin: string; mainFrame: boolean } {
  const frame = event.senderFrame;
  let origin = '';
  try {
    if (frame) origin = new URL(frame.url).origin;
  } catch {
    origin = '';
  }
  // Custom schemes: URL.origin is 'null' for non-special schemes in some runtimes; rebuild it.
  if ((origin === 'null' || origin === '') && typeof frame?.url === 'string' && frame.url.startsWith(`${APP_SCHEME}://`)) {
    const u = new URL(frame.url);
    origin = `${u.protocol}//${u.host}`;
  }
  return { windowId: windowIdOf(event.sender), origin, mainFrame: frame !== null && frame === (event.sender.mainFrame as unknown) };
}
