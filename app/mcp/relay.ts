import { randomBytes } from 'node:crypto';
import { chmod, copyFile, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { SandboxPlan } from '../capture/sandbox';
import { ensurePrivateDir } from '../files/fs-atomic';
import type { Vault } from '../vault';
import { serveStdio } from './serve';

/** Where the agent's sandbox shows the relay directory, and the socket and script in it. */
export const RELAY_MOUNT = '/run/airlock';
export const RELAY_SOCKET = `${RELAY_MOUNT}/mcp.sock`;
export const RELAY_SCRIPT = `${RELAY_MOUNT}/mcp-relay.sh`;

/** A listening relay: its host directory (bound at RELAY_MOUNT in the agent's sandbox) and how to stop it. */
export interface Relay {
  readonly dir: string;
  /** Stops listening, ends every session (their running captures are stopped and stored) and removes the directory. */
  close(): Promise<void>;
}

/**
 * Serves `airlock mcp` on a Unix socket in a fresh 0700 directory under Airlock's data directory,
 * one MCP session per connection. The directory is the only way to the server: the agent's sandbox
 * binds it at RELAY_MOUNT, and every capture sandbox keeps Airlock's data directory out of view, so
 * no captured command can reach the socket — unlike a FIFO in the host's /tmp, which any command
 * that sees /tmp can write forged tool results into. Each connection is its own session, so a
 * second client (a command the agent runs itself) gets a session of its own, never a way into the
 * agent's. `relayScript` (scripts/mcp-relay.sh) is copied beside the socket, so the agent's MCP
 * client can start it whatever its sandbox shows.
 */
export async function startRelay(options: { dataDir: string; relayScript: string; vault: Vault; sandbox: SandboxPlan; env: NodeJS.ProcessEnv; cwd: string }): Promise<Relay> {
  const dir = join(options.dataDir, 'relay', randomBytes(8).toString('hex'));
  await ensurePrivateDir(join(options.dataDir, 'relay'));
  await ensurePrivateDir(dir);
  await copyFile(options.relayScript, join(dir, 'mcp-relay.sh'));
  await chmod(join(dir, 'mcp-relay.sh'), 0o500);
  const sessions = new Set<Promise<void>>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    const session = serveStdio({ vault: options.vault, sandbox: options.sandbox, env: options.env, cwd: options.cwd, stdin: socket, stdout: socket })
      .catch(() => undefined)
      .finally(() => {
        socket.end();
        sockets.delete(socket);
        sessions.delete(session);
      });
    sessions.add(session);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(dir, 'mcp.sock'), () => resolve());
  });
  await chmod(join(dir, 'mcp.sock'), 0o600);
  return {
    dir,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.end();
      await Promise.all([...sessions]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
