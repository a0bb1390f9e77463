// `npm run preview`: the viewer, headed, in Chromium with the real services (the e2e harness), on
// a fresh demo vault in a temp dir (or AIRLOCK_VAULT). Stays open until the viewer page closes.
import { launchApp, tempDemoVault } from './harness';

export async function preview(): Promise<void> {
  const own = process.env.AIRLOCK_VAULT ? null : await tempDemoVault();
  const vault = process.env.AIRLOCK_VAULT ?? own!.vault;
  const app = await launchApp({ vault, headed: true });
  console.log(`airlock preview: ${own ? 'demo vault' : 'vault'} at ${vault}; close the window to quit.`);
  await new Promise<void>((resolve) => {
    app.page.on('close', () => resolve());
    process.on('SIGINT', () => resolve());
  });
  await app.close();
  await own?.cleanup();
}
