import { VaultError, type CaptureRecord, type Vault } from '../../vault';
import { ToolError } from '../tool';
import { loadRedaction } from '../../redact/policy';
import { redactText } from '../../redact/text';

/** A record's sanitized text of one stream, and what --max-text left out of it. */
export interface StoredText {
  readonly text: string;
  readonly truncation: { omitted_bytes: number; head_bytes: number; tail_bytes: number } | null;
}

/** Reads a capture record; a missing or damaged one is a ToolError with a one-line message. */
export async function readCaptureRecord(vault: Vault, id: string): Promise<CaptureRecord> {
  try {
    return await vault.getRecord(id);
  } catch (err) {
    if (err instanceof VaultError) throw new ToolError(err.code === 'not-found' ? `no record ${id} in this vault (list_records shows the recent ones)` : err.message);
    throw err;
  }
}

/**
 * The sanitized text a record keeps for `stream`. Only records written by capture hold it;
 * anything else in the record is ignored, and nothing here touches raw bytes.
 */
export function storedText(record: CaptureRecord, stream: 'stdout' | 'stderr'): StoredText {
  const sanitized = record.sanitized as Record<string, unknown> | undefined;
  const text = sanitized?.[stream];
  if (record.kind !== 'capture' || typeof text !== 'string') throw new ToolError(`record ${record.id} holds no sanitized ${stream} text`);
  const meta = record.metadata as { text_truncated?: Record<string, StoredText['truncation']> } | undefined;
  return { text, truncation: meta?.text_truncated?.[stream] ?? null };
}

/**
 * The stored text as an agent may read it: a record whose capture ran the redaction stage with
 * `on` stores redacted text already; any other (captured with --redact off, or before the stage
 * existed) is redacted now, with the vault's current policy.
 */
export async function agentText(vault: Vault, record: CaptureRecord, stream: 'stdout' | 'stderr'): Promise<StoredText> {
  const stored = storedText(record, stream);
  const mode = (record.redaction as { policy?: { mode?: unknown } } | undefined)?.policy?.mode;
  if (mode === 'on') return stored;
  const { policy } = await loadRedaction(vault.root, 'on');
  return { text: redactText(stored.text, policy).text, truncation: stored.truncation };
}
