import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { SandboxPlan } from '../capture/sandbox';
import type { Vault } from '../vault';
import { createAirlockServer } from './server';
import type { ToolContext } from './tool';

/** What `airlock mcp` serves with. */
export interface ServeOptions {
  readonly vault: Vault;
  readonly sandbox: SandboxPlan;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/** How long shutdown waits for running captures to stop and be stored. */
const SHUTDOWN_WAIT_MS = 10_000;

/**
 * Serves MCP on the given streams until the client goes away (stdin ends or the transport
 * closes). Then running captures are stopped (their process groups get SIGTERM, then SIGKILL)
 * and stored before this resolves, so nothing the agent started runs on unsupervised.
 */
export async function serveStdio(options: ServeOptions): Promise<void> {
  const shutdown = new AbortController();
  const ctx: ToolContext = { vault: options.vault, sandbox: options.sandbox, env: options.env, cwd: options.cwd, shutdown: shutdown.signal, running: { count: 0 } };
  const server = createAirlockServer(ctx);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  // The SDK's stdio transport does not notice the end of stdin by itself.
  const onEnd = (): void => void transport.close();
  options.stdin.once('end', onEnd);
  await server.connect(transport);
  await closed;
  options.stdin.off('end', onEnd);
  shutdown.abort();
  const deadline = Date.now() + SHUTDOWN_WAIT_MS;
  while (ctx.running.count > 0 && Date.now() < deadline) await sleep(20);
}
