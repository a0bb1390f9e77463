// Preload of the prompt window: `window.airlockPrompt` can read and answer its one request only.
import { contextBridge, ipcRenderer } from 'electron';
import { PROMPT_METHODS } from '../../shared/bridge/methods';
import { makeApi, PROMPT_CHANNEL } from './wire';

contextBridge.exposeInMainWorld('airlockPrompt', makeApi(PROMPT_METHODS, (method, args) => ipcRenderer.invoke(PROMPT_CHANNEL, method, args)));
