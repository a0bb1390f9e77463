import type { ParserLimits } from '../../shared/parser';
import type { CrMode } from '../../shared/sanitize';
import { AuditLog, type AuditDetails } from '../node/audit';
import { newRecordId, VaultError, type CaptureRecord, type Vault } from '../node/vault';
import { runCapture } from './capture';
import type { EnvSummary } from './child-env';
import { buildEnvelope, type CaptureEnvelope } from './envelope';
import { buildCaptureRecord, captureAuditDetails } from './record';
import type { SandboxPlan } from './sandbox';
import { loadRedaction, type RedactMode } from '../redact/policy';

/** One capture into an open vault, as `airlock mcp` runs it. */
export interface StoredCaptureRequest {
  readonly vault: Vault;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's whole environment (childEnvironment) and its summary for the envelope. */
  readonly env: NodeJS.ProcessEnv;
  readonly envSummary: EnvSummary;
  readonly maxBytes: number;
  readonly maxText: number;
  readonly cr: CrMode;
  readonly limits: Partial<ParserLimits>;
  readonly timeoutMs: number | null;
  readonly sandbox: SandboxPlan;
  readonly signal?: AbortSignal;
  /** Added to the `capture.stored` audit details (e.g. `{ via: 'mcp' }`). */
  readonly auditExtra?: AuditDetails;
  /** The redaction stage: `on` (default) replaces secrets; `off` only counts them (the CLI's --redact off). */
  readonly redact?: RedactMode;
}

/** The stored capture: the envelope and the record as written (with its audit anchor). */
export interface StoredCapture {
  readonly envelope: CaptureEnvelope;
  readonly record: CaptureRecord;
}

/** The audit log cannot take an entry now, so the command was not run (nothing was stored). */
export class AuditUnavailableError extends Error {
  override readonly name = 'AuditUnavailableError';
  constructor(override readonly cause: unknown) {
    super(`the audit log cannot record a capture, so nothing was run or stored: ${String((cause as Error)?.message ?? cause)}`);
  }
}

/** The record is stored but its audit entry is missing: the operator has to look at the log. */
export class AuditAppendError extends Error {
  override readonly name = 'AuditAppendError';
  constructor(
    readonly recordId: string,
    cause: unknown,
  ) {
    super(`capture stored as record ${recordId}, but the audit log could not be appended: ${String((cause as Error)?.message ?? cause)}`);
  }
}

/**
 * Runs the command and stores it — the one store path `airlock capture` and `airlock mcp` share,
 * so the same bytes give the same sanitized text and the same audit trail on both:
 * 1. the audit log's tail is checked first: a capture that cannot be recorded does not run
 *    (AuditUnavailableError, nothing run or stored);
 * 2. runCapture, then the envelope and the record;
 * 3. the record is written under the audit lock, just before its `capture.stored` entry, and names
 *    that entry (`audit: {seq, hash}`), so `audit verify` can tell a log whose tail was cut off;
 * 4. the retention lock is held from the raw commits until then, so prune cannot delete raw bytes
 *    the record reuses.
 * Rejects with SpawnError when the command cannot start, AuditAppendError when the record is
 * stored but its entry failed (the log changed while the command ran), the vault's errors otherwise.
 */
export async function captureToVault(req: StoredCaptureRequest): Promise<StoredCapture> {
  const { vault } = req;
  const audit = AuditLog.forVault(vault.root);
  try {
    await audit.assertAppendable();
  } catch (err) {
    throw new AuditUnavailableError(err);
  }
  // The vault's redaction policy is read before the command runs: a bad allowlist runs nothing.
  const redaction = await loadRedaction(vault.root, req.redact ?? 'on');
  // Hashing and raw writes run on a worker thread while this one reads the pipes and sanitizes.
  const rawWriters = vault.rawWriterPool();
  const outcome = await runCapture({
    argv: req.argv,
    cwd: req.cwd,
    env: req.env,
    maxBytes: req.maxBytes,
    maxText: req.maxText,
    cr: req.cr,
    limits: req.limits,
    createRawWriter: () => rawWriters.createRawWriter(),
    timeoutMs: req.timeoutMs ?? undefined,
    signal: req.signal,
    holdRetentionLock: () => vault.holdRetentionLock(),
    launch: req.sandbox.launch,
    redaction: { policy: redaction.policy, replace: redaction.info.mode === 'on' },
  });
  let record: CaptureRecord | undefined;
  let written = false;
  try {
    const createdAt = new Date();
    const envelope = buildEnvelope(outcome, { recordId: newRecordId(createdAt), env: req.envSummary, timeoutMs: req.timeoutMs, sandbox: req.sandbox.info, redaction: redaction.info });
    const built = buildCaptureRecord(outcome, envelope, createdAt);
    record = built;
    let stored: CaptureRecord = built;
    await audit.append('capture.stored', { ...captureAuditDetails(envelope, built), ...req.auditExtra }, async (entry) => {
      stored = { ...built, audit: { seq: entry.seq, hash: entry.hash } };
      await vault.putRecord(stored);
      written = true;
    });
    return { envelope, record: stored };
  } catch (err) {
    // The command has run: its output is kept even when the log fails now (it was checked before
    // the command ran, so something changed it meanwhile). `audit verify` reports such a record.
    if (!written && record !== undefined && !(err instanceof VaultError)) {
      written = await vault.putRecord(record).then(() => true, () => false);
    }
    if (written && record !== undefined) throw new AuditAppendError(record.id, err);
    throw err;
  } finally {
    await outcome.releaseRetentionLock?.();
  }
}
