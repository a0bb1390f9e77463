import { z } from 'zod';
import { formatBytes, removedSummary, TextWindow, type CaptureEnvelope, type TextTruncation } from '../capture';
import { redactedSummary } from '../capture/render';
import type { RemovalReport } from '../../shared/sanitize';
import { windowRedactions, type Redaction } from '../../shared/redact';
import type { CaptureRecord } from '../vault';
import { dataNotice, dataRows, field } from './render';
import { recordId, truncation } from './schemas';

/**
 * What an agent gets back for a finished capture: provenance, exit status, the text (head and
 * tail within inline_text), and only what is not nothing: removed classes with a non-zero count,
 * redactions, truncation, a stop, a sandbox hint. The whole report (every counter, the policy,
 * the chunk log) is one `wait {record, full: true}` away. `echo hello` stays well under 2 KB.
 */
const streamRedaction = z.object({
  count: z.number(),
  rules: z.record(z.string(), z.number()),
  redactions: z
    .array(z.object({ rule: z.string(), offset: z.number(), length: z.number(), at: z.number() }))
    .optional()
    .describe('with a count: each marker this result shows (at = its UTF-8 byte offset in this stream text; offset/length = the value in the sanitized text)'),
});

export const compactShape = {
  record: recordId,
  state: z.enum(['running', 'ended', 'interrupted']),
  command: z.string().describe('shell-quoted argv (control characters escaped), at most 300 characters'),
  cwd: z.string(),
  exit_code: z.number().nullable(),
  signal: z.string().nullable(),
  exit_status: z.number().nullable(),
  duration_ms: z.number(),
  sandbox: z.string().describe('bwrap or none, and the network: "bwrap, network none"'),
  sandbox_hint: z.string().optional().describe('after a failed run: a path the command named that the sandbox does not show, and why'),
  bytes: z.object({ stdout: z.number(), stderr: z.number() }).describe('raw bytes captured'),
  removed: z.record(z.string(), z.number()).describe('what the sanitizer removed, by class, both streams (classes with none are left out)'),
  redaction: z
    .object({ policy: z.object({ mode: z.enum(['on', 'off']) }), stdout: streamRedaction, stderr: streamRedaction })
    .describe('secrets replaced by ⟦redacted:RULE⟧ markers, counted by rule (never a value)'),
  truncated: z.boolean().optional().describe('present (true) when the captured bytes end before the output did'),
  termination: z.object({ reason: z.string(), signals: z.array(z.string()).readonly() }).optional().describe('present when Airlock stopped the command'),
  stdout: z.string().describe('sanitized stdout (untrusted data), head and tail within inline_text'),
  stderr: z.string().describe('sanitized stderr (untrusted data), head and tail within inline_text'),
  text_truncated: z.object({ stdout: truncation.optional(), stderr: truncation.optional() }).optional().describe('streams whose stored text max_text shortened'),
  inline: z.object({ stdout: truncation.optional(), stderr: truncation.optional() }).optional().describe('streams this result shortened: page them with read_text'),
  withheld_to_end: z.object({ stdout: z.number().optional(), stderr: z.number().optional() }).optional().describe('raw offset from which nothing reached the text (a control string stayed open, or terminals disagree)'),
  raw_artifacts: z.object({ stdout: z.string(), stderr: z.string() }).describe('restricted references; no tool reads them'),
};

export type CompactResult = z.output<z.ZodObject<typeof compactShape>>;

/**
 * The output schema of `capture` and `wait`: a finished capture's compact result, or for one
 * still running (a background start, a wait that timed out) its record, state, command and cwd.
 */
export const resultShape = {
  ...(Object.fromEntries(Object.entries(compactShape).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof compactShape]: z.ZodOptional<(typeof compactShape)[K]> }),
  record: compactShape.record,
  state: compactShape.state,
  command: compactShape.command,
  cwd: compactShape.cwd,
};

interface StreamRedactionFacts {
  readonly count: number;
  readonly rules: Record<string, number>;
  readonly redactions?: readonly Redaction[];
}

/** The facts a compact result is made of: an envelope has them all, a stored record most. */
interface CaptureFacts {
  readonly record: string;
  readonly state: 'ended' | 'interrupted';
  readonly command: string;
  readonly cwd: string;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly exit_status: number | null;
  readonly duration_ms: number;
  readonly sandbox: { readonly used: string; readonly network: { readonly used: string }; readonly hint?: string | null } | null;
  readonly bytes: { stdout: number; stderr: number };
  readonly reports: readonly (RemovalReport | undefined)[];
  readonly redaction: { readonly policy?: { mode?: unknown }; readonly stdout?: StreamRedactionFacts; readonly stderr?: StreamRedactionFacts } | undefined;
  readonly truncated: boolean;
  readonly termination: { reason: string; signals: readonly string[] } | null;
  readonly text: { stdout: string; stderr: string };
  readonly text_truncated: { stdout: TextTruncation | null; stderr: TextTruncation | null };
  readonly withheld_to_end: { stdout: { from: number } | null; stderr: { from: number } | null } | null;
  readonly raw_artifacts: { stdout: string; stderr: string };
}

/** A finished capture's compact result and its text rendering. */
export function compactEnvelope(env: CaptureEnvelope, inlineBytes: number): { structured: CompactResult; text: string } {
  return compact(
    {
      record: env.record,
      state: 'ended',
      command: env.command,
      cwd: env.cwd,
      exit_code: env.exit_code,
      signal: env.signal,
      exit_status: env.exit_status,
      duration_ms: env.duration_ms,
      sandbox: env.sandbox,
      bytes: env.bytes,
      reports: [env.sanitizer.stdout, env.sanitizer.stderr],
      redaction: env.redaction,
      truncated: env.truncated,
      termination: env.termination,
      text: { stdout: env.stdout, stderr: env.stderr },
      text_truncated: env.text_truncated,
      withheld_to_end: env.withheld_to_end,
      raw_artifacts: env.raw_artifacts,
    },
    inlineBytes,
  );
}

/** A stored record's compact result (its text as an agent may read it, passed in). */
export function compactRecord(rec: CaptureRecord, text: { stdout: string; stderr: string }, inlineBytes: number): { structured: CompactResult; text: string } {
  const m = (rec.metadata ?? {}) as Record<string, unknown>;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const reports = (rec.reports ?? {}) as Record<string, RemovalReport | undefined>;
  const cut = (m.text_truncated ?? {}) as Record<string, TextTruncation | null>;
  const refs = (m.raw_artifacts ?? {}) as Record<string, string>;
  return compact(
    {
      record: rec.id,
      state: rec.state === 'interrupted' ? 'interrupted' : 'ended',
      command: typeof m.command === 'string' ? m.command : String(rec.command ?? ''),
      cwd: typeof m.cwd === 'string' ? m.cwd : '',
      exit_code: num(m.exit_code),
      signal: typeof m.signal === 'string' ? m.signal : null,
      exit_status: num(m.exit_status),
      duration_ms: num(m.duration_ms) ?? 0,
      sandbox: (m.sandbox as CaptureFacts['sandbox']) ?? null,
      bytes: { stdout: rec.raw.stdout?.size ?? 0, stderr: rec.raw.stderr?.size ?? 0 },
      reports: [reports.stdout, reports.stderr],
      redaction: agentRedaction(rec.redaction as CaptureFacts['redaction']),
      truncated: m.truncated === true,
      termination: (m.termination as CaptureFacts['termination']) ?? null,
      text,
      text_truncated: { stdout: cut.stdout ?? null, stderr: cut.stderr ?? null },
      withheld_to_end: null,
      raw_artifacts: { stdout: refs.stdout ?? '', stderr: refs.stderr ?? '' },
    },
    inlineBytes,
  );
}

/**
 * A record's redaction as its agent text shows it: a record captured with `--redact off` stores
 * the text unredacted and an agent reads it redacted now (agentText), so its markers' places are
 * not the record's: only the counts are given.
 */
function agentRedaction(r: CaptureFacts['redaction']): CaptureFacts['redaction'] {
  if (r?.policy?.mode === 'on') return r;
  const counts = (s: StreamRedactionFacts | undefined): StreamRedactionFacts => ({ count: s?.count ?? 0, rules: s?.rules ?? {} });
  return { policy: { mode: 'on' }, stdout: counts(r?.stdout), stderr: counts(r?.stderr) };
}

function compact(f: CaptureFacts, inlineBytes: number): { structured: CompactResult; text: string } {
  const stdout = inlineWindow(f.text.stdout, inlineBytes);
  const stderr = inlineWindow(f.text.stderr, inlineBytes);
  const removed: Record<string, number> = {};
  for (const r of f.reports) for (const [name, c] of Object.entries(r?.classes ?? {})) if (c.count > 0) removed[name] = (removed[name] ?? 0) + c.count;
  // Markers are listed where this result shows them (the inline window cuts the stored text again).
  const counts = (s: StreamRedactionFacts | undefined, text: string, cut: TextTruncation | null): z.output<typeof streamRedaction> => {
    const listed = s?.count && s.redactions ? windowRedactions(s.redactions, Buffer.byteLength(text), cut) : [];
    return { count: s?.count ?? 0, rules: s?.rules ?? {}, ...(listed.length > 0 ? { redactions: listed } : {}) };
  };
  const some = <T>(o: { stdout: T | null | undefined; stderr: T | null | undefined }): { stdout?: T; stderr?: T } | undefined =>
    o.stdout || o.stderr ? { ...(o.stdout ? { stdout: o.stdout } : {}), ...(o.stderr ? { stderr: o.stderr } : {}) } : undefined;
  const structured: CompactResult = {
    record: f.record,
    state: f.state,
    command: field(f.command, 300),
    cwd: field(f.cwd, 300),
    exit_code: f.exit_code,
    signal: f.signal,
    exit_status: f.exit_status,
    duration_ms: Math.round(f.duration_ms),
    sandbox: f.sandbox ? `${f.sandbox.used}, network ${f.sandbox.network.used}` : 'unknown',
    ...(f.sandbox?.hint ? { sandbox_hint: field(f.sandbox.hint, 300) } : {}),
    bytes: f.bytes,
    removed,
    redaction: {
      policy: { mode: f.redaction?.policy?.mode === 'off' ? 'off' : 'on' },
      stdout: counts(f.redaction?.stdout, f.text.stdout, stdout.truncation),
      stderr: counts(f.redaction?.stderr, f.text.stderr, stderr.truncation),
    },
    ...(f.truncated ? { truncated: true } : {}),
    ...(f.termination ? { termination: f.termination } : {}),
    raw_artifacts: f.raw_artifacts,
    stdout: stdout.text,
    stderr: stderr.text,
  };
  const textCut = some(f.text_truncated);
  if (textCut) structured.text_truncated = textCut;
  const inline = some({ stdout: stdout.truncation, stderr: stderr.truncation });
  if (inline) structured.inline = inline;
  const withheld = some({ stdout: f.withheld_to_end?.stdout?.from, stderr: f.withheld_to_end?.stderr?.from });
  if (withheld) structured.withheld_to_end = withheld;
  return { structured, text: renderCompact(structured, f) };
}

/** Head and tail of `text` within `maxBytes` (cut on character boundaries), as the envelope's --max-text does. */
function inlineWindow(text: string, maxBytes: number): { text: string; truncation: TextTruncation | null } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncation: null };
  if (maxBytes === 0) return { text: '', truncation: { omitted_bytes: bytes.length, head_bytes: 0, tail_bytes: 0, at_line_boundaries: true } };
  const window = new TextWindow(maxBytes);
  window.push(bytes);
  const w = window.finish();
  return { text: w.text, truncation: w.truncation };
}

const GUTTER = '| ';

/**
 * The text rendering: Airlock's provenance lines first (only what is not nothing), then the
 * notice, then each stream's sanitized text with every row behind the gutter. Omissions are
 * stated as Airlock lines, never inserted into the text as markers.
 */
function renderCompact(r: CompactResult, f: CaptureFacts): string {
  const how = r.signal !== null ? `killed by ${r.signal}` : r.exit_code !== null ? `exit code ${r.exit_code}` : 'no exit status';
  const out = [`airlock capture ${r.record} (provenance, written by Airlock): ${r.command}`];
  out.push(`${r.state === 'interrupted' ? 'INTERRUPTED (Airlock ended before the command did); ' : ''}${how} after ${r.duration_ms} ms; cwd ${r.cwd}; sandbox ${r.sandbox}`);
  if (r.sandbox_hint) out.push(`sandbox hint: ${r.sandbox_hint}`);
  if (r.termination) out.push(`stopped by Airlock: ${r.termination.reason}; signals ${r.termination.signals.join(', ') || 'none'}`);
  if (r.truncated) out.push('TRUNCATED at max_bytes or by the stop');
  const removed = removedSummary(f.reports.filter((x): x is RemovalReport => x !== undefined));
  if (removed !== 'nothing') out.push(`removed by the sanitizer: ${removed}`);
  if (f.redaction?.stdout && f.redaction.stderr && (r.redaction.stdout.count > 0 || r.redaction.stderr.count > 0)) out.push(`redacted secrets: ${redactedSummary(f.redaction as CaptureEnvelope['redaction'])}`);
  for (const stream of ['stdout', 'stderr'] as const) {
    const stored = r.text_truncated?.[stream];
    if (stored) out.push(`${stream}: max_text kept the first ${formatBytes(stored.head_bytes)} and last ${formatBytes(stored.tail_bytes)}; ${formatBytes(stored.omitted_bytes)} between them were not kept`);
    const inline = r.inline?.[stream];
    if (inline) out.push(`${stream}: this result omits ${formatBytes(inline.omitted_bytes)} after its first ${formatBytes(inline.head_bytes)}; read_text {"record":"${r.record}","stream":"${stream}"} has them`);
  }
  out.push(dataNotice(GUTTER));
  for (const stream of ['stdout', 'stderr'] as const) {
    const text = r[stream];
    const cut = r.inline?.[stream];
    if (text.length === 0) {
      out.push(`--- ${stream}: ${cut ? 'not shown' : 'empty'} ---`);
      continue;
    }
    out.push(`--- ${stream} (sanitized, untrusted) ---`);
    if (cut) {
      const bytes = Buffer.from(text, 'utf8');
      pushRows(out, bytes.subarray(0, cut.head_bytes).toString('utf8'), stream);
      out.push(`... ${formatBytes(cut.omitted_bytes)} of ${stream} omitted here (read_text has them) ...`);
      pushRows(out, bytes.subarray(cut.head_bytes).toString('utf8'), stream);
    } else pushRows(out, text, stream);
  }
  out.push(`--- end of capture ${r.record}; the full report: wait {"record":"${r.record}","full":true} ---`);
  return out.join('\n');
}

function pushRows(out: string[], text: string, stream: string): void {
  if (text.length === 0) return;
  out.push(...dataRows(text, () => GUTTER));
  if (!text.endsWith('\n')) out.push(`(no newline at this point of ${stream})`);
}
