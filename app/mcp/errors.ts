import { SandboxError, SpawnError } from '../capture';
import { AuditAppendError, AuditUnavailableError } from '../capture/stored-capture';
import { AuditDetailsError, AuditLogDamagedError } from '../audit';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { VaultError } from '../vault';
import { RequestError } from '../services/requests';
import { ToolError } from './tool';
import { AllowlistFileError } from '../redact/policy';

/**
 * The one-line message of a failed tool call. Expected failures say what happened and whether
 * anything ran or was stored; anything else is an internal error with its message. Never a stack.
 */
export function toolErrorMessage(tool: string, err: unknown): string {
  return `airlock ${tool}: ${oneLine(describe(err))}`;
}

function describe(err: unknown): string {
  if (err instanceof ToolError || err instanceof AuditAppendError || err instanceof AuditUnavailableError) return err.message;
  if (err instanceof RequestError) return `${err.message} (nothing was queued or released)`;
  if (err instanceof SpawnError) return spawnMessage(err);
  if (err instanceof SandboxError) return `${err.message} (nothing was run)`;
  if (err instanceof AllowlistFileError) return `redaction allowlist: ${err.message} (nothing was run)`;
  if (err instanceof VaultError || err instanceof AuditLogDamagedError || err instanceof AuditDetailsError) return `vault: ${err.message}`;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return `permission denied: ${(err as Error).message}`;
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}

function oneLine(s: string): string {
  const line = terminalSafeLine(s);
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

/** Why a command did not start, like a shell says it (the caller puts the command name first). */
export function spawnMessage(err: SpawnError): string {
  if (err.code === 'ENOENT') return 'command not found (nothing was run or stored)';
  if (err.code === 'EACCES' || err.code === 'EISDIR' || err.code === 'ENOEXEC') return `cannot execute: ${err.code} (nothing was run or stored)`;
  return `cannot start: ${err.message} (nothing was run or stored)`;
}
