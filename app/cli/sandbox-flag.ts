import { planSandbox, SANDBOX_MODES, SandboxError, sandboxHidePaths, type SandboxMode, type SandboxPlan } from '../capture/sandbox';
import { terminalSafeLine } from '../node/terminal-safe';
import { CliError, UsageError } from './command';

/** Reads `--sandbox auto|bwrap|none`; absent means `auto`. */
export function parseSandboxMode(value: string | undefined, fallback: SandboxMode = 'auto'): SandboxMode {
  if (value === undefined) return fallback;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UsageError(`--sandbox must be ${SANDBOX_MODES.join(', ')}, not '${terminalSafeLine(value.slice(0, 40))}'`);
}

/**
 * Decides the sandbox a CLI capture runs in: hides the vault at `vaultRoot` and Airlock's data
 * directory. A sandbox that cannot be had as asked (`bwrap` where it does not work) is a
 * CliError, before anything runs.
 */
export async function sandboxForCli(mode: SandboxMode, vaultRoot: string, env: NodeJS.ProcessEnv): Promise<SandboxPlan> {
  try {
    return await planSandbox(mode, { hide: sandboxHidePaths(vaultRoot, env) }, env);
  } catch (err) {
    if (err instanceof SandboxError) throw new CliError(`${err.message} (nothing was run; --sandbox auto runs without it and says so)`);
    throw err;
  }
}
