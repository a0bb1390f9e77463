// Shared by both preloads (bundled into each; no electron import here). Their allowlists are the
// bridge table's (shared/bridge/methods.ts, which holds no zod: the sandboxed preloads stay small).

/** IPC channels: one per bridge. Main answers each only for the windows it created for it. */
export const VIEWER_CHANNEL = 'airlock:call';
export const PROMPT_CHANNEL = 'airlock-prompt:call';

/** Turns a BridgeWire into its value or a thrown `Error('[code] message')`. */
export function unwrap(wire: unknown): unknown {
  const w = wire as { ok?: unknown; value?: unknown; code?: unknown; message?: unknown } | null;
  if (w && w.ok === true) return w.value;
  const code = typeof w?.code === 'string' ? w.code : 'internal';
  const message = typeof w?.message === 'string' ? w.message : 'no answer from main';
  throw new Error(`[${code}] ${message}`);
}

/**
 * One frozen object with one function per allowlisted method; each forwards its arguments to
 * `invoke(channel, method, args)` and unwraps the answer. The renderer never sees `invoke`.
 */
export function makeApi(methods: readonly string[], invoke: (method: string, args: unknown[]) => Promise<unknown>): Readonly<Record<string, (...args: unknown[]) => Promise<unknown>>> {
  const api: Record<string, (...args: unknown[]) => Promise<unknown>> = Object.create(null);
  for (const m of methods) api[m] = (...args: unknown[]) => invoke(m, args).then(unwrap);
  return Object.freeze(api);
}
