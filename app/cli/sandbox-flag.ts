import { HOST_NETWORK_WARNING, NETWORK_MODES, type NetworkMode } from '../capture/network';
import { planSandbox, protectedPaths, SANDBOX_MODES, SandboxError, type SandboxMode, type SandboxPlan } from '../capture/sandbox';
import type { SandboxMount, SandboxProfile } from '../capture/sandbox-view';
import { terminalSafeLine } from '../terminal/terminal-safe';
import { CliError, UsageError } from './command';

/** Reads `--sandbox auto|bwrap|none`; absent means `auto`. */
export function parseSandboxMode(value: string | undefined, fallback: SandboxMode = 'auto'): SandboxMode {
  if (value === undefined) return fallback;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UsageError(`--sandbox must be ${SANDBOX_MODES.join(', ')}, not '${terminalSafeLine(value.slice(0, 40))}'`);
}

/** Reads `--network none|outbound|host`; absent means the default (outbound where it can be had, else none). */
export function parseNetworkMode(value: string | undefined): NetworkMode | undefined {
  if (value === undefined) return undefined;
  if ((NETWORK_MODES as readonly string[]).includes(value)) return value as NetworkMode;
  throw new UsageError(`--network must be ${NETWORK_MODES.join(', ')}, not '${terminalSafeLine(value.slice(0, 40))}'`);
}

/**
 * Decides the sandbox a CLI command runs in (a person's capture, or the agent's sandbox): the
 * vault at `vaultRoot` and Airlock's data directory protected. A sandbox that cannot be had as
 * asked (`bwrap` where it does not work, `--network outbound` without slirp4netns) is a CliError,
 * before anything runs; `--network host` is warned about on `warn`.
 */
export async function sandboxForCli(
  mode: SandboxMode,
  vaultRoot: string,
  env: NodeJS.ProcessEnv,
  options: { profile: SandboxProfile; network?: NetworkMode; warn: (line: string) => void; mounts?: SandboxMount[] },
): Promise<SandboxPlan> {
  let plan: SandboxPlan;
  try {
    plan = await planSandbox(mode, { protect: protectedPaths(vaultRoot, env), profile: options.profile, network: options.network, mounts: options.mounts }, env);
  } catch (err) {
    if (err instanceof SandboxError) throw new CliError(`${err.message} (nothing was run; --sandbox auto runs without bwrap, --network none without a network, and each says so)`);
    throw err;
  }
  if (plan.info.used === 'bwrap' && plan.info.network.used === 'host') options.warn(`warning: ${HOST_NETWORK_WARNING}`);
  return plan;
}
