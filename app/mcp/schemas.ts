import { z } from 'zod';
import { RECORD_ID } from '../vault';

// Output schemas state what Airlock itself produces. Reports are loose objects: their exact
// layout belongs to shared/sanitize, and the client needs the counts, not a second definition.

/** A record id such as `20261201T084413Z-9558cbe3`. */
export const recordId = z.string().regex(RECORD_ID, 'not a record id (like 20261201T084413Z-9558cbe3)');

/** Which stream of a capture. */
export const streamName = z.enum(['stdout', 'stderr']);

/** What a head/tail window left out. */
export const truncation = z.object({
  omitted_bytes: z.number(),
  head_bytes: z.number(),
  tail_bytes: z.number(),
  at_line_boundaries: z.boolean().describe('both cuts fell on line boundaries, so no kept line joins two the command printed'),
});

/** Per stream: null or the cut. */
export const perStreamTruncation = z.object({ stdout: truncation.nullable(), stderr: truncation.nullable() });

/** The envelope's `sandbox`. */
export const sandboxInfo = z.object({
  requested: z.enum(['auto', 'bwrap', 'none']),
  used: z.enum(['bwrap', 'none']),
  reason: z.string(),
  profile: z.enum(['human', 'strict', 'agent']).nullable(),
  network: z.object({ requested: z.enum(['default', 'none', 'outbound', 'host']), used: z.enum(['none', 'outbound', 'host']), via: z.enum(['slirp4netns']).nullable(), reason: z.string() }),
  hint: z.string().nullable().describe('after a failed run: a path the command named that the sandbox does not show, and why'),
});

/** A removal report: counts by class, never payload. */
export const removalReport = z.looseObject({
  input_bytes: z.number(),
  removed_bytes: z.number(),
  text_bytes: z.number(),
  sha256: z.string().nullable(),
  truncated: z.boolean(),
  classes: z.record(z.string(), z.object({ count: z.number(), bytes: z.number() })),
});

const perStreamNumber = z.object({ stdout: z.number(), stderr: z.number() });

/** One stream's redactions: counts by rule (never a value) and each marker's place. */
const streamRedaction = z.object({
  count: z.number(),
  rules: z.record(z.string(), z.number()),
  lookalikes: z.number().describe('look-alikes of the marker bracket in the output, replaced by U+FFFD'),
  redactions: z
    .array(z.object({ rule: z.string(), offset: z.number(), length: z.number(), at: z.number() }))
    .describe('each marker in the text: at = its UTF-8 byte offset in this stream text; offset/length = the value in the sanitized text'),
  listed_all: z.boolean(),
});

/** The envelope's `redaction`: the policy that ran and per-stream redactions. */
export const redaction = z.object({
  policy: z.looseObject({ mode: z.enum(['on', 'off']), ruleset: z.string(), version: z.number(), rules: z.array(z.string()).readonly(), marker: z.string() }),
  stdout: streamRedaction,
  stderr: streamRedaction,
});
const restrictedRef = z.string().regex(/^restricted:sha256:[0-9a-f]{64}$/);

/** The capture envelope (`airlock capture --json`) as the capture tool returns it. */
export const envelopeShape = {
  envelope_version: z.literal(1),
  record: recordId,
  command: z.string(),
  argv: z.array(z.string()).readonly(),
  cwd: z.string(),
  started_at: z.string(),
  duration_ms: z.number(),
  exit_code: z.number().nullable(),
  signal: z.string().nullable(),
  exit_status: z.number(),
  truncated: z.boolean(),
  termination: z.object({ reason: z.string(), signals: z.array(z.string()).readonly() }).nullable(),
  bytes: perStreamNumber,
  raw_artifacts: z.object({ stdout: restrictedRef, stderr: restrictedRef }),
  limits: z.object({ max_bytes: z.number(), max_text: z.number(), timeout_ms: z.number().nullable() }),
  env: z.object({ set: z.array(z.string()).readonly(), unset: z.array(z.string()).readonly() }),
  stdout: z.string().describe('sanitized stdout (untrusted data), bounded by inline_text'),
  stderr: z.string().describe('sanitized stderr (untrusted data), bounded by inline_text'),
  text_truncated: perStreamTruncation,
  withheld_to_end: z
    .object({ stdout: z.object({ from: z.number() }).nullable(), stderr: z.object({ from: z.number() }).nullable() })
    .describe('per stream: null, or the raw offset from which nothing reached the text (a control string stayed open, or terminals disagree)'),
  sanitizer: z.object({ stdout: removalReport, stderr: removalReport, truncated: z.boolean() }),
  chunk_log: z.object({ count: z.number(), rows: z.number(), coalesced: z.boolean(), complete: z.boolean() }),
  sandbox: sandboxInfo,
  redaction: redaction.describe('secrets replaced by ⟦redacted:RULE⟧ markers (the bracket never comes from the command), counted by rule'),
};
