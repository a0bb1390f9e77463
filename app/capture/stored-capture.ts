import type { ParserLimits } from '../../shared/parser';
import type { CrMode } from '../../shared/sanitize';
import { AuditLog, type AuditDetails } from '../node/audit';
import { newRecordId, type CaptureRecord, type Vault } from '../node/vault';
import { runCapture } from './capture';
import type { EnvSummary } from './child-env';
import { buildEnvelope, type CaptureEnvelope } from './envelope';
import { buildCaptureRecord, captureAuditDetails } from './record';
import type { SandboxPlan } from './sandbox';

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
}

/** The stored capture: the envelope, the record written, and whether the audit append failed. */
export interface StoredCapture {
  readonly envelope: CaptureEnvelope;
  readonly record: CaptureRecord;
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
 * Runs the command and stores it: the same steps as `airlock capture` (runCapture, envelope,
 * record under the retention lock, `capture.stored` audit entry), so the same bytes give the same
 * sanitized text on both paths. Rejects with SpawnError when the command cannot start, with
 * AuditAppendError when only the audit entry failed, and with the vault's errors otherwise.
 */
export async function captureToVault(req: StoredCaptureRequest): Promise<StoredCapture> {
  const { vault } = req;
  const outcome = await runCapture({
    argv: req.argv,
    cwd: req.cwd,
    env: req.env,
    maxBytes: req.maxBytes,
    maxText: req.maxText,
    cr: req.cr,
    limits: req.limits,
    createRawWriter: () => vault.createRawWriter(),
    timeoutMs: req.timeoutMs ?? undefined,
    signal: req.signal,
    holdRetentionLock: () => vault.holdRetentionLock(),
    launch: req.sandbox.launch,
  });
  let envelope: CaptureEnvelope;
  let record: CaptureRecord;
  try {
    const createdAt = new Date();
    envelope = buildEnvelope(outcome, { recordId: newRecordId(createdAt), env: req.envSummary, timeoutMs: req.timeoutMs, sandbox: req.sandbox.info });
    record = buildCaptureRecord(outcome, envelope, createdAt);
    await vault.putRecord(record);
  } finally {
    await outcome.releaseRetentionLock?.();
  }
  try {
    await AuditLog.forVault(vault.root).append('capture.stored', { ...captureAuditDetails(envelope, record), ...req.auditExtra });
  } catch (err) {
    throw new AuditAppendError(record.id, err);
  }
  return { envelope, record };
}
