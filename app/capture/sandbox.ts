import { spawn } from 'node:child_process';
import { constants as fsc, openSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SpawnError } from './child';

/** What the caller asked for: `auto` uses bubblewrap where it works and says when it does not. */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

/** Every accepted {@link SandboxMode}, in the order usage texts list them. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'bwrap', 'none'];

/** Which sandbox ran a capture and why: the envelope's and the record's `sandbox` field. */
export interface SandboxInfo {
  /** The mode asked for (`--sandbox`, or `bwrap` for `airlock mcp`). */
  readonly requested: SandboxMode;
  /** What actually ran the command. */
  readonly used: 'bwrap' | 'none';
  /** One line: why this sandbox (or none) ran. */
  readonly reason: string;
}

/** The sandbox cannot be used as asked (`--sandbox bwrap` where bwrap does not work). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** How to start one command: the argv actually executed and the descriptors beyond 0-2. */
export interface ChildLaunch {
  readonly argv: readonly string[];
  /** stdio entries from index 3 on (see ChildSpawnOptions.extraStdio). */
  readonly extraStdio: readonly (number | 'ignore')[];
}

/** A decided sandbox: what the envelope states, and how each command is started under it. */
export interface SandboxPlan {
  readonly info: SandboxInfo;
  /**
   * Turns the command into what is spawned; undefined means "spawn argv as it is". May throw
   * SpawnError (command not found, checked before bwrap so the status stays 127/126) or
   * SandboxError (the working directory lies inside a hidden directory).
   */
  readonly launch?: (argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv) => Promise<ChildLaunch>;
}

/** Where the sandbox must not let the command look: the vault and Airlock's data directory. */
export interface SandboxPaths {
  readonly hide: readonly string[];
}

/** Result of checking whether bubblewrap can create the namespaces Airlock uses. */
export type BwrapProbe = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

const PROBE_TIMEOUT_MS = 10_000;
/** Probe results by PATH: the answer does not change while Airlock runs. */
const probeCache = new Map<string, Promise<BwrapProbe>>();

/**
 * Finds bwrap on PATH and runs it once with the same namespace flags a capture uses; cached per
 * PATH. Containers often forbid namespaces (no CAP_SYS_ADMIN, user namespaces disabled): that is
 * a failed probe with bwrap's own message.
 */
export function probeBwrap(env: NodeJS.ProcessEnv = process.env): Promise<BwrapProbe> {
  const key = env.PATH ?? '';
  let probe = probeCache.get(key);
  if (!probe) {
    probe = runProbe(key);
    probeCache.set(key, probe);
  }
  return probe;
}

async function runProbe(pathVar: string): Promise<BwrapProbe> {
  if (process.platform !== 'linux') return { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const path = await findExecutable('bwrap', pathVar, '/');
  if (!path) return { ok: false, reason: 'bwrap (bubblewrap) is not installed or not on PATH' };
  const args = [...namespaceArgs(), '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'];
  return new Promise<BwrapProbe>((done) => {
    const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', (e) => done({ ok: false, reason: `bwrap could not be started: ${e.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) done({ ok: true, path });
      else done({ ok: false, reason: `bwrap cannot create namespaces here: ${oneLine(err) || (signal ?? `exit ${code}`)}` });
    });
  });
}

/**
 * Decides the sandbox for `mode`. `none` runs the command as before; `bwrap` requires bubblewrap
 * to work (else SandboxError); `auto` uses it when it works and otherwise falls back to none,
 * stating bwrap's reason in `info.reason`.
 */
export async function planSandbox(mode: SandboxMode, paths: SandboxPaths, env: NodeJS.ProcessEnv = process.env): Promise<SandboxPlan> {
  if (mode === 'none') return { info: { requested: mode, used: 'none', reason: 'sandbox turned off (--sandbox none)' } };
  const probe = await probeBwrap(env);
  if (!probe.ok) {
    if (mode === 'bwrap') throw new SandboxError(`--sandbox bwrap: ${probe.reason}`);
    return { info: { requested: mode, used: 'none', reason: `no sandbox: ${probe.reason}` } };
  }
  return {
    info: { requested: mode, used: 'bwrap', reason: 'bubblewrap: own PID namespace and session, fresh /proc and /dev, vault hidden, only the output pipes inherited' },
    launch: async (argv, cwd, childEnv) => {
      // Looked up per command: a directory created since the plan (a first vault) is hidden too.
      const hide = existingDirs(paths.hide);
      const realCwd = realpathSync(cwd);
      const inside = hide.find((h) => isWithin(realCwd, h));
      if (inside) throw new SandboxError('the working directory is inside the vault or Airlock\'s data directory, which the sandbox hides');
      await assertRunnable(argv[0], childEnv.PATH ?? '', realCwd);
      return { argv: [probe.path, ...bwrapArgs(realCwd, hide), '--', ...argv], extraStdio: coverInheritedFds() };
    },
  };
}

/**
 * The bubblewrap command line, in order (later mounts cover earlier ones):
 * - the whole file system read-only, so compilers, git, node and npm are where they always are;
 * - a fresh /dev (null, zero, tty, urandom, a new devpts: none of the host's terminals) and a
 *   fresh /proc of the new PID namespace (Airlock's process and its /proc/PID/fd are not in it);
 * - a fresh /tmp, then the working directory bound read-write;
 * - an empty tmpfs over the vault and Airlock's data directory, last, so they stay hidden even
 *   when they lie inside the working directory.
 */
export function bwrapArgs(cwd: string, hide: readonly string[]): string[] {
  const args = [...namespaceArgs(), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  args.push('--bind', cwd, cwd);
  for (const dir of hide) args.push('--tmpfs', dir);
  args.push('--chdir', cwd);
  return args;
}

/**
 * Namespace and process flags: own PID and IPC namespace; `--new-session` (setsid: no
 * controlling terminal, so no TIOCSTI and no /dev/tty); `--die-with-parent` (the sandbox dies
 * with Airlock and, its PID 1 gone, every process in it); as root, all capabilities dropped
 * (bwrap keeps them for uid 0 otherwise; an unprivileged bwrap has none to drop).
 */
function namespaceArgs(): string[] {
  const args = ['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session'];
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  return args;
}

const O_CLOEXEC = 0o2000000;
let devNull: number | null = null;

/**
 * Descriptors Airlock itself inherited without close-on-exec (a shell's `3>file`, a harness's
 * pipe) would pass through to the command: Node marks only its own descriptors close-on-exec, and
 * bwrap closes none. Each one is covered with /dev/null at the same number in the child, so the
 * command holds no descriptor of Airlock's but its own two pipes.
 */
export function coverInheritedFds(): (number | 'ignore')[] {
  const leaked = inheritedFds();
  if (leaked.length === 0) return [];
  devNull ??= openSync('/dev/null', 'r');
  const max = Math.max(...leaked);
  const extra: (number | 'ignore')[] = [];
  for (let fd = 3; fd <= max; fd++) extra.push(leaked.includes(fd) ? devNull : 'ignore');
  return extra;
}

/** Airlock's descriptors from 3 on that lack close-on-exec (Linux: /proc/self/fdinfo). */
export function inheritedFds(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
      if (flags && (parseInt(flags[1], 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      // closed meanwhile (the directory listing's own descriptor is one)
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * Fails like spawn would (SpawnError ENOENT or EACCES) when argv[0] cannot run: under bwrap a
 * missing command would be bwrap's exit 1 and a message on stderr, not 127.
 */
async function assertRunnable(file: string, path: string, cwd: string): Promise<void> {
  if (file.includes('/')) {
    const full = resolve(cwd, file);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) throw new SpawnError('ENOENT', `spawn ${file} ENOENT`);
    if (st.isDirectory()) throw new SpawnError('EISDIR', `spawn ${file} EISDIR`);
    if (!(await isExecutable(full))) throw new SpawnError('EACCES', `spawn ${file} EACCES`);
    return;
  }
  if (!(await findExecutable(file, path, cwd))) throw new SpawnError('ENOENT', `spawn ${file} ENOENT`);
}

/** First executable regular file called `name` on `path` (relative entries from `cwd`), or null. */
async function findExecutable(name: string, path: string, cwd: string): Promise<string | null> {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const full = resolve(cwd, dir, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (st?.isFile() && (await isExecutable(full))) return full;
  }
  return null;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Real paths of the directories in `dirs` that exist (bwrap cannot mount over a missing one on a read-only root). */
function existingDirs(dirs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue;
    try {
      if (statSync(dir).isDirectory()) out.add(realpathSync(dir));
    } catch {
      // absent: nothing to hide
    }
  }
  return [...out];
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function oneLine(s: string): string {
  return s.replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 200);
}

/**
 * What a sandboxed command must not see: the vault in use, `$AIRLOCK_VAULT`, and Airlock's data
 * directory (`$XDG_DATA_HOME/airlock` or `~/.local/share/airlock`, where default vaults live).
 */
export function sandboxHidePaths(vaultRoot: string, env: NodeJS.ProcessEnv, home: string = homedir()): string[] {
  const xdg = env.XDG_DATA_HOME;
  const data = xdg && isAbsolute(xdg) ? join(xdg, 'airlock') : join(home, '.local', 'share', 'airlock');
  return [vaultRoot, data, ...(env.AIRLOCK_VAULT ? [resolve(env.AIRLOCK_VAULT)] : [])];
}
