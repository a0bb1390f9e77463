import type { AuditLog } from '../../audit';
import type { Vault } from '../../vault';
import { RequestStore } from '../requests';

/**
 * Seeds the demo vault's review queue with requests as an agent would queue them, so a first start
 * shows the Requests view with work in it: a hex dump around the build log's OSC 52 clipboard
 * write, and the sanitized text of the capture's stdout searched for a word. Both stay pending.
 */
export async function seedDemoRequests(vault: Vault, audit: AuditLog, buildLog: { sha256: string; size: number; bytes: Uint8Array }, capture: { sha256: string } | null, now: Date): Promise<void> {
  // A minute apart, so the queue's newest-first order is the same on every build.
  let t = now.getTime();
  const store = new RequestStore(vault, audit, { now: () => new Date((t += 60_000)) });
  const osc52 = Buffer.from(buildLog.bytes).indexOf('\x1b]52');
  const start = Math.max(0, (osc52 < 0 ? 0 : osc52) - 16);
  await store.create({ artifact: `restricted:sha256:${buildLog.sha256}`, kind: 'hex-range', range: [start, Math.min(buildLog.size, start + 96)], expect: null, search: null, reason: 'The sanitized text lost an OSC 52 clipboard write here; I need the exact bytes to tell whether the payload is the one from incident 4711.' }, 'demo');
  if (capture) {
    await store.create({ artifact: `restricted:sha256:${capture.sha256}`, kind: 'text', range: null, expect: null, search: 'added', reason: 'Check that the install output says what the lockfile says \u2014 and nothing hidden in escapes.' }, 'demo');
  }
}
