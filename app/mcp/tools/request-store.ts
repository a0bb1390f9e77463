import { AuditLog } from '../../audit';
import type { Vault } from '../../vault';
import { RequestStore } from '../../services/requests';

/** The vault's review queue, audited in the vault's log like the CLI's. */
export function requestStore(vault: Vault): RequestStore {
  return new RequestStore(vault, AuditLog.forVault(vault.root));
}
