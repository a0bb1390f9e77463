import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { planSandbox, protectedPaths, type SandboxMode } from '../../app/capture/sandbox';
import { createAirlockServer } from '../../app/mcp/server';
import type { ToolContext } from '../../app/mcp/tool';
import { Vault } from '../../app/vault';

/** An Airlock MCP server and an SDK client joined in memory. */
export interface McpPair {
  readonly client: Client;
  readonly vault: Vault;
  readonly ctx: ToolContext;
  /** Calls a tool and returns the result (isError results included; protocol errors throw). */
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts the server with `sandbox` (auto by default, so the suite also runs where bwrap cannot). */
export async function startMcp(vaultDir: string, sandbox: SandboxMode = 'auto'): Promise<McpPair> {
  const vault = await Vault.open(vaultDir, { create: true });
  const shutdown = new AbortController();
  const ctx: ToolContext = {
    vault,
    sandbox: await planSandbox(sandbox, { protect: protectedPaths(vault.root, process.env), profile: 'strict' }),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    cwd: process.cwd(),
    shutdown: shutdown.signal,
    running: { count: 0 },
  };
  const server = createAirlockServer(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'airlock-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    vault,
    ctx,
    call: async (name, args, options) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000, ...options })) as CallToolResult,
    close: async () => {
      shutdown.abort();
      await client.close();
      await server.close();
    },
  };
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/**
 * Every string an agent could read in a result, decoded (not JSON-escaped, which would hide a raw
 * ESC as \u001b): the strings and keys of the structured content and all text blocks.
 */
export function everything(result: CallToolResult): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
    }
  };
  walk(result.structuredContent ?? null);
  for (const c of result.content) if (c.type === 'text') out.push(c.text);
  return out.join('\n');
}

/** Control and invisible characters that must never reach an agent raw (TAB and LF allowed). */
export const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/u;
