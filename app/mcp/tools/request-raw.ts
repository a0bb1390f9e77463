import { z } from 'zod';
import { MAX_REASON, MAX_SEARCH_TERM } from '../../services/requests';
import { defineTool, ToolError } from '../tool';
import { requestStore } from './request-store';

const offset = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * `request_raw`: queues a request for a bounded extract of a raw artifact. It returns an id and
 * `pending`, nothing else: a human decides (at a terminal, or in the desktop app's prompt), and no
 * tool can approve. The agent follows the request with `request_status`.
 */
export const requestRawTool = defineTool({
  name: 'request_raw',
  title: 'Ask a human for a bounded extract of raw bytes',
  description:
    'Queues a request for a bounded extract of a raw artifact (a restricted:sha256: reference from capture): hex-range (a hex dump of bytes start..end, end exclusive, at most 64 KiB), ' +
    'digest (the sha256 of the range or the whole artifact, at least 32 bytes; with expect, whether it matches) or text (the range through the same sanitizer as capture, with optional search hits). ' +
    'A human reviews it; nothing is released until they approve. Returns the request id and state pending; poll request_status. Give a reason the reviewer can judge.',
  input: {
    artifact: z.string().regex(/^restricted:sha256:[0-9a-f]{64}$/, 'not a restricted:sha256: reference').describe('restricted:sha256:<hex> from a capture envelope'),
    kind: z.enum(['hex-range', 'digest', 'text']),
    start: offset.optional().describe('first byte of the range (with end)'),
    end: offset.optional().describe('end of the range, exclusive (with start)'),
    expect: z.string().max(64).optional().describe('digest only: the sha256 you expect (64 hex digits)'),
    search: z.string().min(1).max(MAX_SEARCH_TERM).optional().describe('text only: a term to find in the sanitized text'),
    reason: z.string().min(1).max(MAX_REASON).describe('why the bytes are needed; the reviewer reads it'),
  },
  output: {
    id: z.string(),
    state: z.literal('pending'),
    kind: z.enum(['hex-range', 'digest', 'text']),
    artifact: z.string(),
    range: z.tuple([z.number(), z.number()]).nullable(),
    expires_at: z.string(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    if ((args.start === undefined) !== (args.end === undefined)) throw new ToolError('give both start and end, or neither');
    const range: [number, number] | null = args.start === undefined ? null : [args.start, args.end!];
    const r = await requestStore(ctx.vault).create({ artifact: args.artifact, kind: args.kind, range, expect: args.expect ?? null, search: args.search ?? null, reason: args.reason }, 'mcp');
    const structured = { id: r.id, state: 'pending' as const, kind: r.kind, artifact: r.artifact, range: r.range, expires_at: r.expires_at };
    return {
      structured,
      text: [
        `airlock request_raw: queued ${r.id} (pending): ${r.kind} of ${r.range ? `bytes ${r.range[0]}..${r.range[1]}` : 'the whole artifact'} of ${r.artifact}`,
        `a human reviews it; nothing is released before they approve. It expires at ${r.expires_at}. Follow it with request_status.`,
      ].join('\n'),
    };
  },
});
