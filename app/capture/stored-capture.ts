import { createHash } from 'node:crypto';
import type { ParserLimits } from '../../shared/parser';
import type { CrMode } from '../../shared/sanitize';
import { AuditLog, type AuditDetails, type AuditEntry } from '../audit';
import { newRecordId, VaultError, type CaptureRecord, type Vault } from '../vault';
import { runCapture, type CaptureOutcome } from './capture';
import { STREAMS } from './chunk-log';
import { fanOut, type CaptureObserver } from './live-feed';
import { RunningRecord } from './running-record';
import { sealInterrupted } from './interrupted';
import { SpawnError } from './child';
import type { EnvSummary } from './child-env';
import { buildEnvelope, type CaptureEnvelope } from './envelope';
import { commandString } from '../terminal/shell-quote';
import { buildCaptureRecord, captureAuditDetails } from './record';
import { explainHiddenPath, type SandboxInfo, type SandboxPlan } from './sandbox';
import { loadRedaction, type RedactionPolicyInfo, type RedactMode } from '../redact/policy';

/** One capture into an open vault, as `airlock capture` and `airlock mcp` run it. */
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
  /** Added to the capture's audit entries (e.g. `{ via: 'mcp' }`). */
  readonly auditExtra?: AuditDetails;
  /** The audit log (default: the vault's); tests pass one that fails on purpose. */
  readonly audit?: AuditLog;
  /** The redaction stage: `on` (default) replaces secrets; `off` only counts them (the CLI's --redact off). */
  readonly redact?: RedactMode;
  /** Follows the capture as it runs (the terminal's rows, MCP progress), beside the running record. */
  readonly observer?: CaptureObserver;
  /** Told the record id once the running record exists, before the command starts. */
  readonly onStart?: (recordId: string) => void;
}

/** The stored capture: the envelope, the record as written, and the entries that frame it. */
export interface StoredCapture {
  readonly envelope: CaptureEnvelope;
  readonly record: CaptureRecord;
  readonly started: AuditEntry;
  readonly stored: AuditEntry;
}

/** The audit log cannot take the `capture.started` entry, so the command was not run (nothing was stored). */
export class AuditUnavailableError extends Error {
  override readonly name = 'AuditUnavailableError';
  constructor(override readonly cause: unknown) {
    super(`the audit log cannot record a capture, so nothing was run or stored: ${String((cause as Error)?.message ?? cause)}`);
  }
}

/** The record is stored but its `capture.stored` entry is missing: the operator has to look at the log. */
export class AuditAppendError extends Error {
  override readonly name = 'AuditAppendError';
  constructor(
    readonly recordId: string,
    cause: unknown,
  ) {
    super(`capture stored as record ${recordId}, but the audit log could not be appended: ${String((cause as Error)?.message ?? cause)}`);
  }
}

/** Longest command line or working directory quoted in a `capture.started` entry (the record has them whole). */
const PREVIEW = 200;

/**
 * Runs the command and stores it — the one store path `airlock capture` and `airlock mcp` share,
 * so the same bytes give the same sanitized text and the same audit trail on both. A vault that
 * cannot take it (Vault.assertRoom: its record limit, or a nearly full disk) refuses first. Write-ahead:
 * 1. `capture.started` (record id, the command line's digest and an ASCII preview, cwd, sandbox,
 *    network) is appended and fsynced first; if the log cannot take it, the command does not run
 *    (AuditUnavailableError, nothing run or stored);
 * 2. runCapture; a run that cannot be stored (the command filled the disk the vault is on, the
 *    sandbox could not be set up, the command was not found) gets `capture.failed` naming the
 *    stage and the error — and when even that cannot be written, the started entry is still the
 *    trace that it ran;
 * 3. the envelope and the record, stored with `capture.stored`, which commits to the sha256 of
 *    the record's bytes (Vault.putRecord), so any later edit of the record shows in `vault verify`;
 * 4. the retention lock is held from the raw commits until then, so prune cannot delete raw bytes
 *    the record reuses.
 * A later task's `running` state fits between 1 and 3: the started entry names the record id the
 * sealed record gets. Rejects with SpawnError when the command cannot start, AuditAppendError when
 * the record is stored but its entry failed, the vault's errors otherwise.
 */
export async function captureToVault(req: StoredCaptureRequest): Promise<StoredCapture> {
  const { vault } = req;
  const audit = req.audit ?? AuditLog.forVault(vault.root);
  await vault.assertRoom();
  // Captures whose Airlock died are sealed as interrupted first (docs/cli.md, "Running captures").
  await sealInterrupted(vault, audit).catch(() => undefined);
  // The vault's redaction policy is read before anything is logged or run: a bad allowlist runs nothing.
  const redaction = await loadRedaction(vault.root, req.redact ?? 'on');
  const recordId = newRecordId(new Date());
  let started: AuditEntry;
  try {
    started = await audit.append('capture.started', { ...req.auditExtra, ...startedDetails(recordId, req) });
  } catch (err) {
    throw new AuditUnavailableError(err);
  }
  // The record exists from here on, as a running record (running/<id>/) the sealed one replaces.
  let running: RunningRecord;
  try {
    running = new RunningRecord(await vault.startRunning(recordId, STREAMS, runningFields(recordId, started, redaction.info, req)), req.maxText);
  } catch (err) {
    await failed(audit, recordId, 'start', err, req.auditExtra);
    throw err;
  }
  const drop = async (): Promise<void> => {
    await running.end('failed', null).catch(() => undefined);
    await running.writer.remove().catch(() => undefined);
  };
  req.onStart?.(recordId);
  // Hashing and raw writes run on a worker thread while this one reads the pipes and sanitizes.
  const rawWriters = vault.rawWriterPool();
  let outcome: CaptureOutcome;
  try {
    outcome = await runCapture({
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
      observer: fanOut([running, req.observer]),
    });
  } catch (err) {
    await failed(audit, recordId, err instanceof SpawnError ? 'start' : 'run', err, req.auditExtra);
    await drop();
    throw err;
  }
  let record: CaptureRecord | undefined;
  try {
    const createdAt = new Date();
    const failedRun = outcome.exit.code !== 0;
    const hint = failedRun && outcome.viewHint ? explainHiddenPath(req.argv, req.cwd, outcome.viewHint) : null;
    const sandbox: SandboxInfo = { ...req.sandbox.info, hint };
    const envelope = buildEnvelope(outcome, { recordId, env: req.envSummary, timeoutMs: req.timeoutMs, sandbox, redaction: redaction.info });
    record = buildCaptureRecord(outcome, envelope, createdAt);
    const details = { ...req.auditExtra, ...captureAuditDetails(envelope, record), started: started.seq };
    let stored: AuditEntry;
    try {
      const put = await vault.putRecord(record, { action: 'capture.stored', details, audit });
      stored = put.entry;
      // A follower reads the last line from the files it has open; then the directory goes.
      await running.end('sealed', put.sha256).catch(() => undefined);
      await running.writer.remove().catch(() => undefined);
    } catch (err) {
      if (err instanceof VaultError) throw err;
      // The command has run: its output is kept even when the log fails now (it took the started
      // entry, so something changed it meanwhile). `vault verify` reports such a record as unbound.
      if (!(await vault.recordExists(recordId))) await vault.writeUnboundRecord(record).catch(() => undefined);
      if (await vault.recordExists(recordId)) throw new AuditAppendError(recordId, err);
      throw err;
    }
    return { envelope, record, started, stored };
  } catch (err) {
    if (!(err instanceof AuditAppendError)) await failed(audit, recordId, 'store', err, req.auditExtra);
    await drop();
    throw err;
  } finally {
    await outcome.releaseRetentionLock?.();
  }
}

/**
 * What a running record's meta.json says of the capture from its start: what the sealed record
 * will say too (argv, cwd, sandbox, limits, redaction policy) and the `capture.started` entry.
 */
function runningFields(recordId: string, started: AuditEntry, redaction: RedactionPolicyInfo, req: StoredCaptureRequest): Record<string, unknown> {
  return {
    record: recordId,
    kind: 'capture',
    started_at: new Date().toISOString(),
    argv: req.argv,
    command: commandString(req.argv),
    cwd: req.cwd,
    via: typeof req.auditExtra?.via === 'string' ? req.auditExtra.via : 'cli',
    audit_started: { seq: started.seq, hash: started.hash },
    sandbox: { ...req.sandbox.info, hint: null },
    limits: { max_bytes: req.maxBytes, max_text: req.maxText, timeout_ms: req.timeoutMs },
    // The text files keep this much of each stream (running-record.ts); the sealed record keeps head and tail.
    text_limit: req.maxText,
    cr: req.cr,
    parser_limits: req.limits,
    env: req.envSummary,
    redaction,
  };
}

/** What `capture.started` holds: printable ASCII only (audit details are metadata, never caller bytes). */
function startedDetails(recordId: string, req: StoredCaptureRequest): AuditDetails {
  const info = req.sandbox.info;
  return {
    record: recordId,
    argc: req.argv.length,
    argv_sha256: digestOf(JSON.stringify(req.argv)),
    command: asciiPreview(commandString(req.argv)),
    cwd: asciiPreview(req.cwd),
    sandbox: info.used,
    ...(info.profile ? { profile: info.profile } : {}),
    network: info.network.used,
    max_bytes: req.maxBytes,
  };
}

/** Appends `capture.failed`; when the log cannot take it either, `capture.started` stays the trace. */
async function failed(audit: AuditLog, recordId: string, stage: 'start' | 'run' | 'store', err: unknown, extra: AuditDetails | undefined): Promise<void> {
  const code = (err as { code?: unknown })?.code;
  const details: AuditDetails = {
    ...extra,
    record: recordId,
    stage,
    error: asciiPreview(String((err as Error)?.message ?? err)),
    ...(typeof code === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(code) ? { code } : {}),
    ...(err instanceof VaultError ? { vault_error: err.code } : {}),
  };
  await audit.append('capture.failed', details).catch(() => undefined);
}

/** `text` as printable ASCII (other characters as \uXXXX), cut to PREVIEW characters with `...`. */
export function asciiPreview(text: string): string {
  const escaped = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > PREVIEW ? `${escaped.slice(0, PREVIEW - 3)}...` : escaped;
}

function digestOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
