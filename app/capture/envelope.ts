import type { RemovalReport } from '../../shared/sanitize';
import type { CaptureOutcome, Termination } from './capture';
import type { EnvSummary } from './child-env';
import type { StreamName } from './chunk-log';
import { captureExitStatus } from './exit-status';
import { commandString } from '../terminal/shell-quote';
import type { SandboxInfo } from './sandbox';
import type { TextTruncation } from './text-window';
import type { StreamRedaction } from './stream-capture';
import { defaultRedaction, type RedactionPolicyInfo } from '../redact/policy';

/** Version of the {@link CaptureEnvelope} shape; bumped on any incompatible change. */
export const ENVELOPE_VERSION = 1;

/** A value per captured stream. */
export type PerStream<T> = { [K in StreamName]: T };

/** The limits a capture ran under. */
export interface CaptureLimits {
  /** Hard cap on raw bytes captured, both streams together. */
  readonly max_bytes: number;
  /** Bound on sanitized text per stream in the envelope and record. */
  readonly max_text: number;
  /** --timeout in ms, or null. */
  readonly timeout_ms: number | null;
}

/**
 * What `airlock capture --json` prints: provenance made by Airlock around the sanitized text of
 * each stream. Every field except `stdout` and `stderr` is Airlock's own; those two are untrusted
 * text (sanitized: no control sequences, no removed payload) and nothing inside them can change
 * the fields around them. Truncation is stated here, never as marker text inside the output.
 * Raw bytes and removed payloads are never in it: `raw_artifacts` are references an agent cannot
 * resolve.
 */
export interface CaptureEnvelope {
  readonly envelope_version: typeof ENVELOPE_VERSION;
  /** The vault record holding this capture. */
  readonly record: string;
  /** argv shell-quoted for display. */
  readonly command: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** ISO 8601. */
  readonly started_at: string;
  readonly duration_ms: number;
  /** null when a signal ended the command. */
  readonly exit_code: number | null;
  /** Signal name (e.g. SIGTERM) or null. */
  readonly signal: string | null;
  /** What `airlock capture` exits with: exit_code, or 128 + signal number; 124 for --timeout, 125 for --max-bytes. */
  readonly exit_status: number;
  /** Some stream was cut before its end; `termination` says why. */
  readonly truncated: boolean;
  /** null when the command ended on its own; else why Airlock stopped it and with which signals. */
  readonly termination: Termination | null;
  /** Raw bytes captured per stream. */
  readonly bytes: PerStream<number>;
  /** `restricted:sha256:<hex>` per stream. */
  readonly raw_artifacts: PerStream<string>;
  readonly limits: CaptureLimits;
  /** Names of the variables set or removed for the child (values are not shown). */
  readonly env: EnvSummary;
  /** Sanitized text (UTF-8) of each stream, bounded by limits.max_text. */
  readonly stdout: string;
  readonly stderr: string;
  /** Per stream: null, or what the head/tail window left out of `stdout`/`stderr`. */
  readonly text_truncated: PerStream<TextTruncation | null>;
  /**
   * Per stream: null, or the raw offset from which nothing reached the text because a string or
   * sequence was still open, or the terminal readings still disagreed, at end of input
   * (one stray byte such as 0x9D can do that; see the report's `ambiguous`).
   */
  readonly withheld_to_end: PerStream<{ from: number } | null>;
  /** Removal reports (counts only, never payload) and whether input was cut. */
  readonly sanitizer: PerStream<RemovalReport> & { readonly truncated: boolean };
  /** Size of the chunk log stored in the record (arrival order of chunks across both streams). */
  readonly chunk_log: { count: number; rows: number; coalesced: boolean; complete: boolean };
  /** Which sandbox ran the command and why (`--sandbox`). */
  readonly sandbox: SandboxInfo;
  /**
   * The secret-redaction stage (docs/secrets.md): which policy ran, and per stream the redactions
   * by rule (counts over the whole stream, never a value) and each marker in `stdout`/`stderr`.
   */
  readonly redaction: EnvelopeRedaction;
}

/** The envelope's `redaction`. */
export interface EnvelopeRedaction {
  readonly policy: RedactionPolicyInfo;
  readonly stdout: StreamRedaction;
  readonly stderr: StreamRedaction;
}

/** The `sandbox` field of a capture that was not given one (library callers of buildEnvelope). */
export const NO_SANDBOX: SandboxInfo = Object.freeze({
  requested: 'none',
  used: 'none',
  reason: 'no sandbox requested',
  profile: null,
  network: Object.freeze({ requested: 'default', used: 'host', via: null, reason: "no sandbox: the command shares the host's network" }),
  hint: null,
});

/** Extra facts the envelope states that the capture itself does not know. */
export interface EnvelopeContext {
  readonly recordId: string;
  readonly env: EnvSummary;
  readonly timeoutMs: number | null;
  /** Default {@link NO_SANDBOX}. */
  readonly sandbox?: SandboxInfo;
  /** The redaction policy the capture ran with (default: the built-in rules, on). */
  readonly redaction?: RedactionPolicyInfo;
}

/** Builds the envelope for a stored capture. */
export function buildEnvelope(outcome: CaptureOutcome, context: EnvelopeContext): CaptureEnvelope {
  const { stdout, stderr } = outcome.streams;
  return {
    envelope_version: ENVELOPE_VERSION,
    record: context.recordId,
    command: commandString(outcome.argv),
    argv: [...outcome.argv],
    cwd: outcome.cwd,
    started_at: outcome.startedAt.toISOString(),
    duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
    exit_code: outcome.exit.code,
    signal: outcome.exit.signal,
    exit_status: captureExitStatus(outcome.exit, outcome.termination),
    truncated: outcome.truncated,
    termination: outcome.termination,
    bytes: { stdout: stdout.raw.size, stderr: stderr.raw.size },
    raw_artifacts: { stdout: stdout.raw.ref, stderr: stderr.raw.ref },
    limits: captureLimits(outcome, context.timeoutMs),
    env: context.env,
    stdout: stdout.text.text,
    stderr: stderr.text.text,
    text_truncated: { stdout: stdout.text.truncation, stderr: stderr.text.truncation },
    withheld_to_end: { stdout: withheldToEnd(stdout.report), stderr: withheldToEnd(stderr.report) },
    sanitizer: { stdout: stdout.report, stderr: stderr.report, truncated: outcome.truncated },
    chunk_log: outcome.chunkLog.summary(),
    sandbox: context.sandbox ?? NO_SANDBOX,
    redaction: { policy: context.redaction ?? defaultRedaction().info, stdout: stdout.redaction, stderr: stderr.redaction },
  };
}

function withheldToEnd(report: RemovalReport): { from: number } | null {
  return report.withheld_from === null ? null : { from: report.withheld_from };
}

/** The limits block shared by envelope and record. */
export function captureLimits(outcome: CaptureOutcome, timeoutMs: number | null): CaptureLimits {
  return { max_bytes: outcome.maxBytes, max_text: outcome.maxText, timeout_ms: timeoutMs };
}
