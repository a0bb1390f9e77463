import { describe, expect, it, vi } from 'vitest';
import { BRIDGE_ARGS, BRIDGE_METHODS, GRANT_METHODS, PROMPT_METHODS, VIEWER_METHODS } from '../../../shared/bridge/contract';
import { unwrap } from '../../../app/preload/wire';

const exposed = vi.hoisted(() => [] as [string, Record<string, (...a: unknown[]) => Promise<unknown>>][]);
const invoked = vi.hoisted(() => [] as unknown[][]);
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, (...a: unknown[]) => Promise<unknown>>) => void exposed.push([key, api]) },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      invoked.push(args);
      return args[1] === 'readRaw' ? { ok: false, code: 'no-grant', message: 'no grant g-1 for this window' } : { ok: true, value: 'v' };
    },
  },
}));

describe('preloads', () => {
  it('the allowlists split the table by window, and every method has its schema', () => {
    expect([...VIEWER_METHODS, ...PROMPT_METHODS].sort()).toEqual(Object.keys(BRIDGE_METHODS).sort());
    expect(Object.keys(BRIDGE_ARGS).sort()).toEqual(Object.keys(BRIDGE_METHODS).sort());
    expect(PROMPT_METHODS).toEqual(['getPrompt', 'answerPrompt']);
    expect([...GRANT_METHODS].sort()).toEqual(['exportHexDump', 'getPayloads', 'getSecretValues', 'getSpanValues', 'readRaw', 'readRunningRaw', 'searchRaw']);
  });

  it('viewer preload exposes window.airlock: one function per method, frozen, no ipcRenderer', async () => {
    await import('../../../app/preload/viewer');
    const [key, api] = exposed.find(([k]) => k === 'airlock')!;
    expect(key).toBe('airlock');
    expect(Object.keys(api).sort()).toEqual([...VIEWER_METHODS].sort());
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.getPrototypeOf(api)).toBeNull();
    for (const v of Object.values(api)) expect(typeof v).toBe('function');
    for (const k of ['ipcRenderer', 'invoke', 'send', 'on', 'answerPrompt']) expect(k in api).toBe(false);
    expect(await api.listRecords()).toBe('v');
    expect(invoked.at(-1)).toEqual(['airlock:call', 'listRecords', []]);
    await expect(api.readRaw('g-1', 0, 4)).rejects.toThrow('[no-grant] no grant g-1 for this window');
  });

  it('prompt preload exposes window.airlockPrompt with its two methods only', async () => {
    await import('../../../app/preload/prompt');
    const [, api] = exposed.find(([k]) => k === 'airlockPrompt')!;
    expect(Object.keys(api).sort()).toEqual(['answerPrompt', 'getPrompt']);
    await api.getPrompt();
    expect(invoked.at(-1)).toEqual(['airlock-prompt:call', 'getPrompt', []]);
  });

  it('unwrap turns a malformed answer into an internal error', () => {
    expect(() => unwrap(null)).toThrow('[internal]');
    expect(unwrap({ ok: true, value: 1 })).toBe(1);
  });
});
