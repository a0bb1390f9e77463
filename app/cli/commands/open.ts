import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { resolveVaultDir } from '../../vault/location';
import { CliError, UsageError, type CliIo, type Command } from '../command';
import { importIntoVault, type Imported } from '../vault/import';

const USAGE = `Usage:
  airlock open FILE|restricted:sha256:<hex> [--vault DIR]

Start the desktop viewer on a raw transcript: FILE (.bin, .log, a script(1) typescript, an
asciinema .cast) is first imported into the vault as a restricted artifact, exactly as
'airlock vault import FILE' does (the vault is created if missing); a reference opens an
artifact already in the vault. Raw bytes still appear only after you authorize them in the app.
A running app receives the target instead (one instance). Where the Electron binary is not
installed, a source checkout opens the same viewer in Chromium (npm run preview, which needs a
display); with neither, nothing is imported and the message says what to run.

Options:
  --vault DIR   vault directory (default: $AIRLOCK_VAULT, else the default vault, else the demo vault)`;

const REF = /^restricted:sha256:[0-9a-f]{64}$/;

/** What `open` needs from the system; tests pass fakes. */
export interface OpenDeps {
  /** Path of the Electron binary, or null when it is not installed. */
  electron(): string | null;
  /** dist/app/main.cjs of this installation. */
  mainScript(): string;
  launch(bin: string, args: string[], env: NodeJS.ProcessEnv): void;
  /**
   * scripts/preview.mjs of a source checkout whose preview can run (Playwright installed and the
   * renderer built), or null: the viewer in Chromium with the real services, where Electron is not.
   */
  preview(): string | null;
  /** Imports FILE into the vault at DIR (the import service, as `airlock vault import`). */
  importFile(vaultDir: string, file: string): Promise<Imported>;
}

/** The package root: dist/airlock.mjs (bundled) or app/cli/commands/open.ts (sources) lives below it. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

export const defaultOpenDeps: OpenDeps = {
  electron() {
    const pkg = join(packageRoot(), 'node_modules/electron');
    const pathFile = join(pkg, 'path.txt');
    if (!existsSync(pathFile)) return null; // never require('electron'): it would try to download
    const bin = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkg, 'dist'), readFileSync(pathFile, 'utf8').trim());
    return existsSync(bin) ? bin : null;
  },
  mainScript: () => join(packageRoot(), 'dist/app/main.cjs'),
  launch(bin, args, env) {
    spawn(bin, args, { detached: true, stdio: 'ignore', env }).unref();
  },
  preview() {
    const root = packageRoot();
    const script = join(root, 'scripts/preview.mjs');
    const ready = [script, join(root, 'node_modules/@playwright/test/package.json'), join(root, 'dist/renderer/index.html'), join(root, 'e2e/harness.ts')].every((p) => existsSync(p));
    return ready ? script : null;
  },
  importFile: (vaultDir, file) => importIntoVault(vaultDir, file),
};

/** Runs `airlock open` with the given dependencies. */
export async function runOpen(args: readonly string[], io: CliIo, deps: OpenDeps): Promise<number> {
  let vault: string | undefined;
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--vault') {
      vault = args[++i];
      if (vault === undefined) throw new UsageError('--vault needs a directory');
    } else if (a.startsWith('--vault=')) vault = a.slice(8);
    else if (a === '--') {
      targets.push(...args.slice(i + 1));
      break;
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option '${terminalSafeLine(a.slice(0, 40))}'`);
    else targets.push(a);
  }
  if (targets.length !== 1) throw new UsageError(targets.length === 0 ? 'missing FILE or restricted:sha256: reference' : 'give one FILE or reference');
  let target = targets[0]!;
  const isRef = target.startsWith('restricted:');
  if (isRef) {
    if (!REF.test(target)) throw new UsageError(`'${terminalSafeLine(target.slice(0, 100))}' is not a restricted:sha256:<64 lowercase hex digits> reference`);
  } else {
    target = resolve(io.cwd, target);
    let st;
    try {
      st = statSync(target);
    } catch {
      throw new CliError(`no such file: ${terminalSafeLine(target)}`);
    }
    if (!st.isFile()) throw new CliError(`not a regular file: ${terminalSafeLine(target)}`);
  }
  // Which viewer runs here, decided before anything is imported.
  const bin = deps.electron();
  const main = deps.mainScript();
  const preview = bin ? null : deps.preview();
  if (bin && !existsSync(main)) throw new CliError(`${terminalSafeLine(main)} is missing; run npm run build`);
  if (!bin && !preview) {
    throw new CliError(`no viewer here: the Electron binary is not installed (it cannot be downloaded) and this is not a source checkout that can run the preview (npm run preview); ${isRef ? 'view the artifact\'s sanitized text with airlock vault show' : 'import the file with airlock vault import and read its sanitized text with airlock vault show'}`);
  }
  if (preview && !io.env.DISPLAY && !io.env.WAYLAND_DISPLAY) {
    throw new CliError('the preview (Chromium, where Electron is not installed) needs a display: DISPLAY and WAYLAND_DISPLAY are unset (run under xvfb-run, or import with airlock vault import)');
  }
  const vaultDir = vault !== undefined || !isRef ? resolveVaultDir(vault, io.env, io.cwd) : undefined;
  let ref = target;
  if (!isRef) {
    // The same import as `airlock vault import`: the viewer is started on the stored artifact.
    const imported = await deps.importFile(vaultDir!, target);
    ref = imported.artifacts[0]?.ref ?? '';
    if (!ref) throw new CliError(`${terminalSafeLine(target)} was imported as record ${imported.result.record.id} but holds no artifact to open`);
    io.stderr.write(`airlock: imported ${terminalSafeLine(target)} as ${ref} (record ${imported.result.record.id}) into ${terminalSafeLine(imported.vault)}\n`);
  }
  const appArgs = [`--open=${ref}`, ...(vaultDir ? [`--vault=${vaultDir}`] : [])];
  if (bin) {
    deps.launch(bin, [main, ...appArgs], io.env);
    io.stderr.write(`airlock: opening ${ref} in the desktop viewer\n`);
  } else {
    deps.launch(process.execPath, [preview!, ...appArgs], io.env);
    io.stderr.write(`airlock: opening ${ref} in the preview (Chromium with the real services; Electron is not installed here)\n`);
  }
  return 0;
}

/** `airlock open`: start the desktop viewer on a file or an artifact reference. */
export const openCommand: Command = {
  name: 'open',
  usage: USAGE,
  run: (args, io) => runOpen(args, io, defaultOpenDeps),
};
