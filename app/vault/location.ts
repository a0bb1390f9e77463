import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from './errors';

/**
 * The vault directory when none is given on the command line: `$AIRLOCK_VAULT`, else
 * `$XDG_DATA_HOME/airlock/vault`, else `~/.local/share/airlock/vault`. Relative env values are
 * ignored for XDG_DATA_HOME as the XDG spec requires; a relative AIRLOCK_VAULT is refused
 * (VaultError 'bad-location').
 */
export function defaultVaultDir(env: NodeJS.ProcessEnv, home: string = homedir()): string {
  if (env.AIRLOCK_VAULT) {
    // Resolved against each command's cwd, a relative value (an unexpanded `~/vault` among them)
    // would open a different vault in every directory.
    if (!isAbsolute(env.AIRLOCK_VAULT)) {
      const hint = env.AIRLOCK_VAULT.startsWith('~') ? " ('~' is expanded only by a shell, outside quotes)" : '';
      throw new VaultError('bad-location', `AIRLOCK_VAULT must be an absolute path, not '${terminalSafeLine(env.AIRLOCK_VAULT.slice(0, 100))}'${hint}`);
    }
    return env.AIRLOCK_VAULT;
  }
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'airlock', 'vault');
  return join(home, '.local', 'share', 'airlock', 'vault');
}

/**
 * Resolves the vault directory for a command: `--vault DIR` beats `$AIRLOCK_VAULT` beats the
 * default; a relative result is taken relative to `cwd` (the CLI's, not the process's).
 */
export function resolveVaultDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, flag ?? defaultVaultDir(env));
}
