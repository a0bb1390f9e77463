import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { SandboxPlan } from '../capture/sandbox';
import type { Vault } from '../vault';

/** What every tool may use: the vault, the sandbox captures run in, and the server's defaults. */
export interface ToolContext {
  readonly vault: Vault;
  readonly sandbox: SandboxPlan;
  /** The environment captured commands start from (childEnvironment adds the plain-output variables). */
  readonly env: NodeJS.ProcessEnv;
  /** Working directory of a capture that names none. */
  readonly cwd: string;
  /** Aborted when the server shuts down: running captures stop and are stored. */
  readonly shutdown: AbortSignal;
  /** Captures running now; the capture tool refuses work past its limit. */
  readonly running: { count: number };
}

/** One call's own channel back to the client. */
export interface ToolCall {
  /**
   * Sends an MCP progress notification for this call (present when the client asked for
   * progress with a progressToken): `progress` must grow with each one; `message` is Airlock's
   * own text, never the command's.
   */
  readonly progress?: (progress: number, message: string) => Promise<void>;
}

/** What a tool returns: structured content (checked against its output schema) and its text rendering. */
export interface ToolOutput<T> {
  readonly structured: T;
  readonly text: string;
}

/**
 * One MCP tool as a small module: a name, zod input and output shapes, and `run`. The server
 * (server.ts) registers every entry of TOOLS (tools/index.ts) the same way, so a new tool, such as
 * the raw-access request tools that come with the review queue, is one file plus one list entry.
 */
export interface AirlockTool<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations?: ToolAnnotations;
  /**
   * Throws ToolError (or a library error errors.ts knows) for a one-line isError result. The
   * structured result is checked against `output` by the SDK at run time (statically it is only
   * an object: loose report schemas have index signatures the report interfaces lack).
   */
  run(args: z.output<z.ZodObject<I>>, ctx: ToolContext, signal: AbortSignal, call?: ToolCall): Promise<ToolOutput<object>>;
}

/** Any tool, as the TOOLS list holds them. */
export type AnyAirlockTool = AirlockTool<z.ZodRawShape, z.ZodRawShape>;

/** Identity helper that infers a tool's argument and result types from its shapes. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(tool: AirlockTool<I, O>): AirlockTool<I, O> {
  return tool;
}

/** An expected failure of a tool call; its message becomes the one-line isError text. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
