// Preload of viewer windows (sandboxed: only `electron`'s renderer modules are available).
// Exposes `window.airlock` — one function per contract method — and never ipcRenderer itself
// (Electron security checklist #3 context isolation, #20 do not expose Electron APIs).
import { contextBridge, ipcRenderer } from 'electron';
import { VIEWER_METHODS } from '../../shared/bridge/methods';
import { makeApi, VIEWER_CHANNEL } from './wire';

contextBridge.exposeInMainWorld('airlock', makeApi(VIEWER_METHODS, (method, args) => ipcRenderer.invoke(VIEWER_CHANNEL, method, args)));
