import type { AuditDetails } from '../audit';
import type { CaptureRecord } from '../vault';
import type { CaptureEnvelope } from './envelope';
import type { CaptureOutcome } from './capture';

/** Version of the capture record layout (the vault checks only id, created_at and raw). */
export const CAPTURE_RECORD_VERSION = 1;

/**
 * The vault record for a capture: raw digests (which the vault checks exist), the same bounded
 * sanitized text and reports the envelope carries, the full chunk log, and the metadata under
 * `metadata` (with `command` and `exit_code` also at the top level, where `vault list` looks).
 * Like the envelope it never holds a raw byte or a removed payload.
 */
export function buildCaptureRecord(outcome: CaptureOutcome, envelope: CaptureEnvelope, createdAt: Date): CaptureRecord {
  const { stdout, stderr } = outcome.streams;
  return {
    id: envelope.record,
    created_at: createdAt.toISOString(),
    raw: {
      stdout: { sha256: stdout.raw.sha256, size: stdout.raw.size },
      stderr: { sha256: stderr.raw.sha256, size: stderr.raw.size },
    },
    kind: 'capture',
    record_version: CAPTURE_RECORD_VERSION,
    command: envelope.command,
    exit_code: envelope.exit_code,
    metadata: {
      command: envelope.command,
      argv: envelope.argv,
      cwd: envelope.cwd,
      started_at: envelope.started_at,
      duration_ms: envelope.duration_ms,
      exit_code: envelope.exit_code,
      signal: envelope.signal,
      exit_status: envelope.exit_status,
      truncated: envelope.truncated,
      termination: envelope.termination,
      bytes: envelope.bytes,
      raw_artifacts: envelope.raw_artifacts,
      text_truncated: envelope.text_truncated,
      limits: envelope.limits,
      env: envelope.env,
      envelope_version: envelope.envelope_version,
      sandbox: envelope.sandbox,
    },
    sanitized: { stdout: envelope.stdout, stderr: envelope.stderr },
    reports: { stdout: envelope.sanitizer.stdout, stderr: envelope.sanitizer.stderr },
    chunks: outcome.chunkLog.toJSON(),
    redaction: envelope.redaction,
    raw_suspected_secrets: rawSuspectedSecrets(envelope),
  };
}

/**
 * The note that a record's raw bytes hold suspected secrets: per stream, what the redaction stage
 * counted by rule over the whole stream (null when it found none). `vault prune
 * --raw-with-secrets-older-than` reads it.
 */
export function rawSuspectedSecrets(envelope: CaptureEnvelope): { stdout: SecretCounts | null; stderr: SecretCounts | null } {
  const note = (r: CaptureEnvelope['redaction']['stdout']): SecretCounts | null => (r.count > 0 ? { count: r.count, rules: r.rules } : null);
  return { stdout: note(envelope.redaction.stdout), stderr: note(envelope.redaction.stderr) };
}

/** Suspected secrets of one raw stream, by rule. */
export interface SecretCounts {
  readonly count: number;
  readonly rules: Record<string, number>;
}

/**
 * Details of the `capture.stored` audit entry: ids, digests, sizes and status only. The command
 * line is left out on purpose: it is caller text of any length and alphabet, and audit details
 * hold printable-ASCII metadata only; the record (linked by id) has it.
 */
export function captureAuditDetails(envelope: CaptureEnvelope, record: CaptureRecord): AuditDetails {
  const details: Record<string, AuditDetails[string]> = {
    record: record.id,
    raw: {
      stdout: { sha256: record.raw.stdout.sha256, size: record.raw.stdout.size },
      stderr: { sha256: record.raw.stderr.sha256, size: record.raw.stderr.size },
    },
    exit_status: envelope.exit_status,
    truncated: envelope.truncated,
    duration_ms: Math.round(envelope.duration_ms),
  };
  if (envelope.exit_code !== null) details.exit_code = envelope.exit_code;
  if (envelope.signal !== null) details.signal = envelope.signal;
  if (envelope.termination) details.termination = envelope.termination.reason;
  details.sandbox = envelope.sandbox.used;
  return details;
}
