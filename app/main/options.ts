// Command-line and environment options of the Electron app (plain Node: tested without Electron).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultVaultDir } from '../vault';
import { DEFAULT_GRANT_TTL_MS } from '../services/grants/grants';

export interface AppOptions {
  /** Vault to open; null: use the default vault if it exists, else build the demo vault. */
  readonly vault: string | null;
  /** `airlock open FILE|restricted:sha256:…`: a file to import, or a reference to open. */
  readonly open: string | null;
  readonly grantTtlMs: number;
}

/** Reads `--vault=DIR`, `--open=FILE|REF` (from `airlock open`) and AIRLOCK_VAULT / AIRLOCK_GRANT_TTL_MS. */
export function parseAppOptions(argv: readonly string[], env: NodeJS.ProcessEnv): AppOptions {
  let vault: string | null = env.AIRLOCK_VAULT || null;
  let open: string | null = null;
  for (const arg of argv) {
    if (arg.startsWith('--vault=')) vault = arg.slice(8) || null;
    else if (arg.startsWith('--open=')) open = arg.slice(7) || null;
  }
  const ttl = Number(env.AIRLOCK_GRANT_TTL_MS);
  return { vault, open, grantTtlMs: Number.isSafeInteger(ttl) && ttl >= 1000 ? ttl : DEFAULT_GRANT_TTL_MS };
}

/** The vault to open: the given one, else the default one if it is a vault, else null (demo). */
export function chooseVault(options: AppOptions, env: NodeJS.ProcessEnv): string | null {
  if (options.vault) return options.vault;
  const dflt = defaultVaultDir(env);
  return existsSync(join(dflt, 'records')) ? dflt : null;
}
