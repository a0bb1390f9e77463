// A fake `electron` module for unit tests (the real one would try to download a binary).
// Records every call so tests can assert the security settings main applies.
import { EventEmitter } from 'node:events';

export interface FakeWindow extends EventEmitter {
  id: number;
  options: Record<string, unknown>;
  webContents: FakeContents;
  loadURL(url: string): Promise<void>;
  loaded: string[];
  close(): void;
  show(): void;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
  reload(): void;
}

export interface FakeContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null;
  setWindowOpenHandler(fn: (details: { url: string }) => { action: string }): void;
  mainFrame: object;
}

export function makeContents(): FakeContents {
  const c = new EventEmitter() as FakeContents;
  c.windowOpenHandler = null;
  c.setWindowOpenHandler = (fn) => void (c.windowOpenHandler = fn);
  c.mainFrame = {};
  return c;
}

export function makeSession() {
  const s = new EventEmitter() as EventEmitter & Record<string, unknown>;
  const handlers: Record<string, unknown> = {};
  s.setPermissionRequestHandler = (fn: unknown) => void (handlers.request = fn);
  s.setPermissionCheckHandler = (fn: unknown) => void (handlers.check = fn);
  s.setDevicePermissionHandler = (fn: unknown) => void (handlers.device = fn);
  s.webRequest = { onBeforeRequest: (fn: unknown) => void (handlers.beforeRequest = fn) };
  s.handlers = handlers;
  return s as EventEmitter & { handlers: Record<string, (...a: unknown[]) => unknown> } & Record<string, unknown>;
}

export function makeElectron() {
  const calls: { name: string; args: unknown[] }[] = [];
  const record = (name: string) => (...args: unknown[]) => void calls.push({ name, args });
  const windows: FakeWindow[] = [];
  let nextId = 1;
  let ready: () => void = () => undefined;
  const whenReady = new Promise<void>((r) => (ready = r));
  const appEvents = new EventEmitter();
  const ipcHandlers = new Map<string, (...a: unknown[]) => unknown>();
  const session = { defaultSession: makeSession() };
  class BrowserWindow extends EventEmitter {
    id = nextId++;
    loaded: string[] = [];
    webContents = makeContents();
    constructor(public options: Record<string, unknown>) {
      super();
      windows.push(this as unknown as FakeWindow);
    }
    async loadURL(url: string) {
      this.loaded.push(url);
    }
    close() {
      this.emit('closed');
    }
    show() {}
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {}
    reload() {}
    static fromWebContents(wc: unknown) {
      return (windows.find((w) => w.webContents === wc) ?? null) as unknown;
    }
    static fromId(id: number) {
      return (windows.find((w) => w.id === id) ?? null) as unknown;
    }
  }
  const electron = {
    app: Object.assign(appEvents, {
      enableSandbox: record('app.enableSandbox'),
      requestSingleInstanceLock: () => {
        calls.push({ name: 'app.requestSingleInstanceLock', args: [] });
        return true;
      },
      whenReady: () => whenReady,
      isPackaged: true,
      getVersion: () => '0.1.0-test',
      getPath: (_name: string) => process.env.AIRLOCK_TEST_USERDATA ?? '/nonexistent',
      quit: record('app.quit'),
      exit: record('app.exit'),
    }),
    BrowserWindow,
    protocol: {
      registerSchemesAsPrivileged: record('protocol.registerSchemesAsPrivileged'),
      handle: (scheme: string, fn: unknown) => void calls.push({ name: 'protocol.handle', args: [scheme, fn] }),
    },
    ipcMain: { handle: (channel: string, fn: (...a: unknown[]) => unknown) => void ipcHandlers.set(channel, fn) },
    session,
    Menu: { setApplicationMenu: record('Menu.setApplicationMenu'), buildFromTemplate: (template: unknown[]) => ({ template }) },
    dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }), showSaveDialog: async () => ({ canceled: true }), showErrorBox: record('dialog.showErrorBox') },
    clipboard: { writeText: record('clipboard.writeText') },
    shell: { openExternal: record('shell.openExternal') },
    contextBridge: { exposeInMainWorld: record('contextBridge.exposeInMainWorld') },
    ipcRenderer: { invoke: async (...args: unknown[]) => ({ ok: true, value: args }) },
  };
  return { electron, calls, windows, ipcHandlers, ready: () => ready(), appEvents };
}
