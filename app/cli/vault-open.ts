import { constants as fsc } from 'node:fs';
import { access } from 'node:fs/promises';
import { CliError } from './command';
import { AuditDetailsError, AuditLogDamagedError } from '../audit';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from '../vault/errors';
import { resolveVaultDir } from '../vault/location';
import { Vault } from '../vault/vault';

/** The parts of CliIo that locate a vault. */
export interface VaultIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/**
 * Opens the vault a CLI command names (`--vault DIR` > $AIRLOCK_VAULT > default, relative to the
 * command's cwd). Does not create it: list/show/verify/prune on a missing vault say "no vault at DIR".
 */
export async function openVaultForCli(flag: string | undefined, io: VaultIo): Promise<Vault> {
  const dir = resolveVaultDir(flag, io.env, io.cwd);
  try {
    return await Vault.open(dir);
  } catch (err) {
    throw toCliError(err);
  }
}

/**
 * Fails early, before anything changes, when the vault root (where the audit log and its lock
 * live) or its records directory cannot be written: prune must not half-run.
 */
export async function assertVaultWritable(vault: Vault): Promise<void> {
  for (const dir of [vault.root, vault.layout.recordsDir]) {
    try {
      await access(dir, fsc.W_OK | fsc.X_OK);
    } catch {
      throw new CliError(`vault ${terminalSafeLine(vault.root)} is not writable (${terminalSafeLine(dir)})`);
    }
  }
}

/**
 * Turns the library's expected failures into CliErrors with printable messages; anything else is
 * rethrown unchanged (run.ts prints it through `printable`).
 */
export function toCliError(err: unknown): unknown {
  if (err instanceof VaultError || err instanceof AuditLogDamagedError || err instanceof AuditDetailsError) {
    return new CliError(terminalSafeLine(err.message));
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new CliError(`permission denied: ${terminalSafeLine(String((err as Error).message))}`);
  }
  return err;
}
