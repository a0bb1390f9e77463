// `npm run preview [-- [--vault=DIR] [--open=FILE|restricted:sha256:…]]`: the viewer, headed, in
// Chromium with the real services (the e2e harness), on a fresh demo vault in a temp dir (or
// --vault / AIRLOCK_VAULT). "Open file…" shows a picker page (e2e/file-picker.ts) and imports
// through the same service as Electron's dialog; --open starts on a file (imported first) or an
// artifact, as `airlock open` asks. Stays open until the viewer page closes.
import type { HarnessApp } from './harness';
import { launchApp, tempDemoVault } from './harness';
import { pickFile } from './file-picker';
import { importFile } from '../app/services/import/importer';

/** `--vault=DIR` and `--open=TARGET` (also as two arguments); anything else is an error. */
export function previewArgs(argv: readonly string[]): { vault: string | null; open: string | null } {
  let vault: string | null = null;
  let open: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (name !== '--vault' && name !== '--open') throw new Error(`airlock preview: unknown argument '${a.slice(0, 60)}' (takes --vault=DIR and --open=FILE|REF)`);
    const value = inline ?? argv[++i];
    if (!value) throw new Error(`airlock preview: ${name} needs a value`);
    if (name === '--vault') vault = value;
    else open = value;
  }
  return { vault, open };
}

/**
 * Starts the viewer on TARGET: a reference as it is, a file imported first through the import
 * service (as Electron's main does for `airlock open FILE`); the page reloads to open it.
 */
export async function openAtStart(app: HarnessApp, target: string): Promise<string> {
  let ref = target;
  if (!/^restricted:sha256:[0-9a-f]{64}$/.test(target)) {
    const { record } = await importFile(app.services.vault, app.services.audit, target);
    await app.services.view.refresh();
    ref = Object.values(record.raw).map((r) => `restricted:sha256:${r.sha256}`)[0] ?? '';
  }
  app.services.view.setOpen(ref);
  await app.page.reload();
  return ref;
}

export async function preview(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const args = previewArgs(argv);
  const given = args.vault ?? process.env.AIRLOCK_VAULT ?? null;
  const own = given ? null : await tempDemoVault();
  const vault = given ?? own!.vault;
  const app = await launchApp({ vault, headed: true, pickFile: (context) => pickFile(context, process.cwd()) });
  if (args.open) await openAtStart(app, args.open);
  console.log(`airlock preview: ${own ? 'demo vault' : 'vault'} at ${vault}; close the window to quit.`);
  await new Promise<void>((resolve) => {
    app.page.on('close', () => resolve());
    process.on('SIGINT', () => resolve());
  });
  await app.close();
  await own?.cleanup();
}
