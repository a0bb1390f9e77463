import { AuditLog } from '../../audit';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { parseRef } from '../../vault';
import { CliError, type CliIo } from '../command';
import { openVaultForCli, toCliError } from '../vault-open';
import type { Opened, OpenedBy, ViewedRange } from './artifact';

/**
 * Opens a vault artifact named by its `restricted:sha256:` reference `arg` (for the command and
 * view named in `by`). Opening raw bytes from the vault is an access like any other: a
 * `raw.opened` entry (who, digest, range, view) is appended to the audit log first, and if the
 * log cannot take it nothing is opened.
 */
export async function openRestricted(arg: string, range: ViewedRange, vaultFlag: string | undefined, io: CliIo, by: OpenedBy): Promise<Opened> {
  try {
    const { sha256 } = parseRef(arg);
    const vault = await openVaultForCli(vaultFlag, io);
    if (!(await vault.hasRaw(sha256))) throw new CliError(`raw artifact ${arg} is not in vault ${terminalSafeLine(vault.root)} (pruned, or never stored there)`);
    await AuditLog.forVault(vault.root).append('raw.opened', {
      sha256,
      via: by.via,
      view: by.view || (range.dump ? 'hex-dump' : 'summary'),
      offset: range.offset,
      length: range.length === Infinity ? 'all' : range.length,
    });
    return { path: vault.rawPath(sha256), shown: arg };
  } catch (err) {
    const e = toCliError(err);
    if (e instanceof CliError) throw e;
    throw new CliError(`did not open ${terminalSafeLine(arg.slice(0, 100))}: ${terminalSafeLine(e instanceof Error ? e.message : String(e))}`);
  }
}
