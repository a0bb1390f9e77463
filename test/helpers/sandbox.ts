import { probeBwrap } from '../../app/capture/sandbox';

/**
 * Why bubblewrap tests cannot run here, or null. CI installs bubblewrap; a container that
 * forbids namespaces gets a skip that names bwrap's own reason instead of a silent pass.
 */
export async function bwrapUnavailable(): Promise<string | null> {
  const probe = await probeBwrap();
  return probe.ok ? null : probe.reason;
}
