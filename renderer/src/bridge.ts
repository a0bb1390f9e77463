// The one way to main: `window.airlock` (the preload's contextBridge API, or the e2e harness).
// Tests and the dev page install a fake with setBridge.
import type { AirlockBridge } from '../../shared/bridge/contract';

declare global {
  interface Window {
    airlock?: AirlockBridge;
  }
}

let installed: AirlockBridge | null = null;

export function setBridge(bridge: AirlockBridge | null): void {
  installed = bridge;
}

export function bridge(): AirlockBridge {
  const b = installed ?? (typeof window !== 'undefined' ? window.airlock : undefined);
  if (!b) throw new Error('window.airlock is missing: the viewer runs only inside the Airlock app');
  return b;
}

/** The `[code]` of a bridge error, or null. */
export function errorCode(e: unknown): string | null {
  const m = /^\[([a-z-]+)\]/.exec(e instanceof Error ? e.message : String(e));
  return m ? m[1] : null;
}

/** A bridge error as one line for the UI. */
export function errorText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}
