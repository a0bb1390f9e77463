// Dev page only (not in the production build): installs the in-memory fake bridge on the real
// shared/ sanitizer, then starts the real renderer. Query: ?decide=deny&ttl=ms&big=bytes&theme=light.
import { createFakeBridge } from '../../test/renderer/fake-bridge';

const q = new URLSearchParams(location.search);
const fake = createFakeBridge({
  bigBytes: q.has('big') ? Number(q.get('big')) : 4 * 2 ** 30,
  grantTtlMs: q.has('ttl') ? Number(q.get('ttl')) : undefined,
  decide: () => new Promise((resolve) => setTimeout(() => resolve(q.get('decide') === 'deny' ? 'deny' : 'approve'), 400)),
});
window.airlock = fake;
(window as unknown as { __fake: typeof fake.control }).__fake = fake.control;
if (q.get('theme')) document.documentElement.dataset.theme = q.get('theme')!;
void import('../src/main');
