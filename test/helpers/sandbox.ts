import { probeBwrap } from '../../app/capture/sandbox';

/**
 * Why bubblewrap tests cannot run here, or null. CI installs bubblewrap; a container that
 * forbids namespaces gets a skip that names bwrap's own reason instead of a silent pass, unless
 * AIRLOCK_REQUIRE_BWRAP=1 makes it a failure.
 */
export async function bwrapUnavailable(): Promise<string | null> {
  const probe = await probeBwrap();
  if (probe.ok) return null;
  // CI sets this where bubblewrap is installed: there a skip would hide a broken sandbox.
  if (process.env.AIRLOCK_REQUIRE_BWRAP === '1') throw new Error(`AIRLOCK_REQUIRE_BWRAP=1 but ${probe.reason}`);
  return probe.reason;
}
