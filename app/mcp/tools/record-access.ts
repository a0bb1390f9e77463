import { VaultError, type CaptureRecord, type Vault } from '../../vault';
import { ToolError } from '../tool';
import { loadRedaction } from '../../redact/policy';
import { redactText } from '../../redact/text';
import { completeUtf8Prefix } from '../../capture/text-window';

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

/** Text of a running record read at once: at most this much, as head and tail. */
const RUNNING_READ_BYTES = 1024 * 1024;

/**
 * The sanitized text a running capture has stored so far (its running record's file; head and
 * tail past RUNNING_READ_BYTES), as an agent may read it: redacted now unless the capture runs
 * the redaction stage with `on`. Null when no capture with this id is running.
 */
export async function runningText(vault: Vault, id: string, stream: 'stdout' | 'stderr'): Promise<StoredText | null> {
  const handle = await vault.openRunning(id).catch(() => null);
  if (!handle) return null;
  try {
    const size = await handle.textSize(stream);
    const half = RUNNING_READ_BYTES / 2;
    const whole = size <= RUNNING_READ_BYTES;
    const head = await handle.readText(stream, 0, whole ? size : half);
    const tail = whole ? Buffer.alloc(0) : await handle.readText(stream, size - half, half);
    // Cut where characters end: the text files are Airlock's UTF-8, but a read may end mid-character.
    const headText = new TextDecoder('utf-8', { fatal: false }).decode(head.subarray(0, completeUtf8Prefix(head)));
    const tailStart = tail.length === 0 ? 0 : utf8Start(tail);
    const text = headText + new TextDecoder().decode(tail.subarray(tailStart));
    const mode = (handle.meta.redaction as { mode?: unknown } | undefined)?.mode;
    const shown = mode === 'on' ? text : redactText(text, (await loadRedaction(vault.root, 'on')).policy).text;
    const truncation = whole ? null : { omitted_bytes: size - head.length - (tail.length - tailStart), head_bytes: Buffer.byteLength(headText), tail_bytes: tail.length - tailStart, at_line_boundaries: false };
    return { text: shown, truncation };
  } finally {
    await handle.close();
  }
}

/** The first byte of `b` that begins a character (continuation bytes skipped). */
function utf8Start(b: Uint8Array): number {
  let i = 0;
  while (i < b.length && i < 4 && (b[i] & 0xc0) === 0x80) i++;
  return i;
}
