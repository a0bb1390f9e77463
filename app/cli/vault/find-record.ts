import { terminalSafeLine } from '../../terminal/terminal-safe';
import { isRecordId, VaultError, type CaptureRecord, type Vault } from '../../vault';
import { captureTime } from '../../vault/display';
import { CliError } from '../command';

/** Something that can only be the start of a record id (`20261201T08`, `20261201T084512Z-1a`). */
const ID_PREFIX = /^\d{1,8}(T\d{0,6}(Z(-[0-9a-f]{0,8})?)?)?$/;

/**
 * The record id a user means: a full id as it is, `latest` for the newest capture, or the one id
 * that starts with a prefix. Anything else is passed on for the vault's id check to refuse.
 */
export async function findRecordId(vault: Vault, arg: string): Promise<string> {
  if (arg === 'latest') {
    let latest: CaptureRecord | null = null;
    for await (const r of vault.eachRecord()) {
      if (!r.ok) continue;
      if (!latest || captureTime(r.record) > captureTime(latest) || (captureTime(r.record) === captureTime(latest) && r.id > latest.id)) latest = r.record;
    }
    if (!latest) throw new VaultError('not-found', `no records in vault ${terminalSafeLine(vault.root)}`);
    return latest.id;
  }
  if (isRecordId(arg) || !ID_PREFIX.test(arg)) return arg;
  const matches = (await vault.recordIds()).filter((id) => id.startsWith(arg));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new VaultError('not-found', `no record id starts with ${arg} in vault ${terminalSafeLine(vault.root)}`);
  const shown = matches.slice(0, 3).join(', ');
  throw new CliError(`${arg} is the start of ${matches.length} record ids (${shown}${matches.length > 3 ? ', …' : ''}); give more of the id`);
}
