import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../../../app/audit';
import { Vault } from '../../../../app/vault';
import { RequestStore, type RequestStoreOptions } from '../../../../app/services/requests';

/** A hostile transcript: SGR, an OSC 52 clipboard write, a title, bidi, and plain text around them. */
export const HOSTILE = Buffer.from('build: \x1b[31mFAIL\x1b[0m\n\x1b]52;c;c2VjcmV0\x07value=abc123 ok\n\x1b]0;TITLE\x07file \u202eexe.txt\u202c\nend of log\n', 'utf8');

/** A temp vault holding HOSTILE as a raw artifact, its audit log, and a store over both. */
export async function requestVault(options: RequestStoreOptions = {}, content: Uint8Array = HOSTILE): Promise<{ dir: string; vault: Vault; audit: AuditLog; store: RequestStore; ref: string; sha256: string; size: number; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-req-'));
  await chmod(dir, 0o700);
  const vault = await Vault.open(join(dir, 'vault'), { create: true });
  const w = vault.createRawWriter();
  await w.write(content);
  const { sha256, size } = await w.commit();
  const audit = AuditLog.forVault(vault.root);
  const store = new RequestStore(vault, audit, options);
  return { dir, vault, audit, store, ref: `restricted:sha256:${sha256}`, sha256, size, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
