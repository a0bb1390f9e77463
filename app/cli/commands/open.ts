import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { terminalSafeLine } from '../../node/terminal-safe';
import { CliError, UsageError, type CliIo, type Command } from '../command';

const USAGE = `Usage:
  airlock open FILE|restricted:sha256:<hex> [--vault DIR]

Start the desktop viewer on a raw transcript: FILE (.bin, .log, a script(1) typescript, an
asciinema .cast) is imported into the vault as a restricted artifact; a reference opens an
artifact already in the vault. Raw bytes still appear only after you authorize them in the app.
A running app receives the target instead (one instance).

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
  if (target.startsWith('restricted:')) {
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
  const bin = deps.electron();
  if (!bin) throw new CliError('the Electron binary is not installed here (it cannot be downloaded); run `npm run preview` to open the viewer in Chromium with the real services');
  const main = deps.mainScript();
  if (!existsSync(main)) throw new CliError(`${terminalSafeLine(main)} is missing; run npm run build`);
  deps.launch(bin, [main, `--open=${target}`, ...(vault ? [`--vault=${resolve(io.cwd, vault)}`] : [])], io.env);
  io.stderr.write(`airlock: opening ${terminalSafeLine(target)} in the desktop viewer\n`);
  return 0;
}

/** `airlock open`: start the desktop viewer on a file or an artifact reference. */
export const openCommand: Command = {
  name: 'open',
  usage: USAGE,
  run: (args, io) => runOpen(args, io, defaultOpenDeps),
};
