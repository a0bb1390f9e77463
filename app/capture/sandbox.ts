import { spawn } from 'node:child_process';
import { closeSync, constants as fsc, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { SpawnError, type RunningChild } from './child';
import { findExecutable, isExecutable } from './executable';
import { attachOutbound, NetworkError, planNetwork, sandboxResolvConf, type NetworkInfo, type NetworkMode, type NetworkPlan } from './network';
import { buildView, SANDBOX_MARKER, ViewError, type DataFile, type SandboxMount, type SandboxProfile, type SandboxView } from './sandbox-view';
import { describeTmp, hostTmpView } from './tmp-view';

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
  /** One line: why this sandbox (or none) ran, and what it shows. */
  readonly reason: string;
  /** Whose view the sandbox builds (see SandboxProfile); null without a sandbox. */
  readonly profile: SandboxProfile | null;
  /** The network the command had. */
  readonly network: NetworkInfo;
  /**
   * Set after a failed run whose command line names a path the sandbox does not show (a file in
   * the host's /tmp under MCP, a directory outside the view): which path, and why it was not there.
   */
  readonly hint: string | null;
}

/** The sandbox cannot be used as asked (`--sandbox bwrap` where bwrap does not work, a working directory it cannot show). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
}

/** How to start one command: the argv actually executed and the descriptors beyond 0-2. */
export interface ChildLaunch {
  readonly argv: readonly string[];
  /** stdio entries from index 3 on (see ChildSpawnOptions.extraStdio). */
  readonly extraStdio: readonly (number | 'ignore' | 'pipe')[];
  /**
   * Called once the process is spawned, before the command itself runs (bwrap waits for it):
   * hands the sandbox what it needs from outside (files, the network helper). Resolves to what
   * undoes that once the command ended; a rejection stops the sandbox.
   */
  readonly started?: (child: Pick<RunningChild, 'extra'>) => Promise<() => Promise<void>>;
  /** Closes descriptors opened for the spawn (the working directory's); called once spawned or failed. */
  readonly release?: () => void;
  /** Why a path the command line names is not in the sandbox's view, or null (see SandboxInfo.hint). */
  readonly hint?: (path: string) => string | null;
}

/** A decided sandbox: what the envelope states, and how each command is started under it. */
export interface SandboxPlan {
  readonly info: SandboxInfo;
  /**
   * Turns the command into what is spawned; undefined means "spawn argv as it is". May throw
   * SpawnError (command not found, checked before bwrap so the status stays 127/126) or
   * SandboxError (a working directory the sandbox cannot show).
   */
  readonly launch?: (argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv) => Promise<ChildLaunch>;
}

/** What a sandbox must keep out of reach, whose view it builds, and its network. */
export interface SandboxOptions {
  /** Directories no command may see or move: the vault and Airlock's data directory (see protectedPaths). */
  readonly protect: readonly string[];
  readonly profile: SandboxProfile;
  /** Absent: outbound where slirp4netns is installed, else none. */
  readonly network?: NetworkMode;
  /** Host directories shown at a path of the sandbox (the agent's relay directory); writable unless `readOnly`. */
  readonly mounts?: readonly SandboxMount[];
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
  const path = findExecutable('bwrap', pathVar, '/');
  if (!path) return { ok: false, reason: 'bwrap (bubblewrap) is not installed or not on PATH' };
  const args = [...namespaceArgs('none'), '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--proc', '/proc', '--dev', '/dev', '--', 'true'];
  return new Promise<BwrapProbe>((done) => {
    const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', (e) => done({ ok: false, reason: `bwrap could not be started: ${e.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) done({ ok: true, path });
      // A /usr-less system makes `true` fail to start, not the namespaces: that is a working bwrap.
      else if (code === 1 && /execvp true/.test(err)) done({ ok: true, path });
      else done({ ok: false, reason: `bwrap cannot create namespaces here: ${oneLine(err) || (signal ?? `exit ${code}`)}` });
    });
  });
}

/**
 * Decides the sandbox for `mode`. `none` runs the command as before; `bwrap` requires bubblewrap
 * to work (else SandboxError); `auto` uses it when it works and otherwise falls back to none,
 * stating bwrap's reason in `info.reason`. The network is decided here too (a NetworkError for
 * `--network outbound` without slirp4netns is a SandboxError).
 */
export async function planSandbox(mode: SandboxMode, options: SandboxOptions, env: NodeJS.ProcessEnv = process.env): Promise<SandboxPlan> {
  const unshared: NetworkInfo = { requested: options.network ?? 'default', used: 'host', via: null, reason: "no sandbox: the command shares the host's network" };
  if (mode === 'none') return { info: { requested: mode, used: 'none', reason: 'sandbox turned off (--sandbox none)', profile: null, network: unshared, hint: null } };
  const probe = await probeBwrap(env);
  if (!probe.ok) {
    if (mode === 'bwrap') throw new SandboxError(`--sandbox bwrap: ${probe.reason}`);
    return { info: { requested: mode, used: 'none', reason: `no sandbox: ${probe.reason}`, profile: null, network: unshared, hint: null } };
  }
  let network: NetworkPlan;
  try {
    network = planNetwork(options.network, env);
  } catch (err) {
    if (err instanceof NetworkError) throw new SandboxError(err.message);
    throw err;
  }
  const { helper, ...networkInfo } = network;
  // Scanned once, here: the reason says what the command's /tmp is, and the view shows just that.
  const tmpView = options.profile === 'human' ? hostTmpView() : undefined;
  const reason = `bubblewrap (${options.profile}): own user, PID and network namespaces and session; read-only system directories, ${
    options.profile === 'human' ? '$HOME read-only' : options.profile === 'strict' ? 'an empty private $HOME' : '$HOME writable'
  }, the working directory writable, ${describeTmp(tmpView)}, fresh /proc, a /dev without terminals; the vault and Airlock's data directory not in it; only the output pipes inherited`;
  return {
    info: { requested: mode, used: 'bwrap', reason, profile: options.profile, network: networkInfo, hint: null },
    launch: async (argv, cwd, childEnv) => {
      const cwdFd = openDirectory(cwd);
      let release = (): void => closeSync(cwdFd);
      try {
        // The descriptor's path is where the directory is now, whatever path named it.
        const realCwd = readlinkSync(`/proc/self/fd/${cwdFd}`);
        const resolvConf = network.used === 'outbound' ? sandboxResolvConf() : null;
        // bwrap's own descriptors take the lowest numbers the covered inherited ones leave free.
        const fds = new ChildFds();
        const cwdSlot = fds.add(cwdFd);
        const infoSlot = network.used === 'outbound' ? fds.add('pipe') : -1;
        const blockSlot = network.used === 'outbound' ? fds.add('pipe') : -1;
        const dataSlot = resolvConf ? fds.add('pipe') : -1;
        const data: DataFile[] = resolvConf ? [{ path: resolvConf.path, fd: dataSlot }] : [];
        let view: SandboxView;
        try {
          // Looked up per command: a directory created since the plan (a first vault) is protected too.
          view = buildView({ profile: options.profile, cwd: realCwd, cwdFd: cwdSlot, protect: existingDirs(options.protect), home: childEnv.HOME ?? null, path: childEnv.PATH ?? '', data, mounts: options.mounts, tmpView });
        } catch (err) {
          if (err instanceof ViewError) throw new SandboxError(err.message);
          throw err;
        }
        assertRunnable(argv[0], childEnv.PATH ?? '', realCwd, view);
        const sync = network.used === 'outbound' ? ['--info-fd', String(infoSlot), '--block-fd', String(blockSlot)] : [];
        const extraStdio = fds.stdio();
        const started = async (child: Pick<RunningChild, 'extra'>): Promise<() => Promise<void>> => {
          if (resolvConf) (child.extra[dataSlot - 3] as Duplex).end(resolvConf.text);
          if (network.used !== 'outbound') return async () => undefined;
          return attachOutbound(helper!, child.extra[infoSlot - 3] as Duplex, child.extra[blockSlot - 3] as Duplex);
        };
        const launch: ChildLaunch = {
          argv: [probe.path, ...namespaceArgs(network.used), ...sync, '--setenv', 'AIRLOCK_SANDBOX', options.profile, ...view.args, '--', ...argv],
          extraStdio,
          started,
          release: () => release(),
          hint: view.hint,
        };
        return launch;
      } catch (err) {
        release();
        release = () => undefined;
        throw err;
      }
    },
  };
}

/**
 * Namespace and process flags: own user, PID, IPC, UTS and, unless `host`, network namespace;
 * `--new-session` (setsid: no controlling terminal, so no TIOCSTI and no /dev/tty);
 * `--die-with-parent` (the sandbox dies with Airlock and, its PID 1 gone, every process in it);
 * all capabilities dropped (bwrap keeps them for uid 0 otherwise). Not `--disable-userns`: it
 * moves the command into a second user namespace that does not own the network namespace, so
 * slirp4netns could no longer join it. A user namespace the command makes inherits the mounts
 * locked: it cannot uncover what the sandbox covered.
 */
function namespaceArgs(network: NetworkMode): string[] {
  const args = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (network !== 'host') args.push('--unshare-net');
  return args;
}

/** Opens a directory for --bind-fd; a missing or unreadable one is a SandboxError naming it. */
function openDirectory(dir: string): number {
  try {
    return openSync(dir, fsc.O_RDONLY | fsc.O_DIRECTORY);
  } catch (err) {
    throw new SandboxError(`the working directory ${oneLine(dir)} cannot be opened (${(err as { code?: string }).code ?? 'error'})`);
  }
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

/**
 * The descriptors a sandboxed child gets from 3 on: every inherited one of Airlock's covered with
 * /dev/null at its own number (see coverInheritedFds), and those the sandbox passes to bwrap at
 * the lowest numbers left free.
 */
class ChildFds {
  private readonly slots: (number | 'ignore' | 'pipe')[] = coverInheritedFds();

  /** Places `entry` at the lowest free number and returns that number. */
  add(entry: number | 'pipe'): number {
    let i = this.slots.indexOf('ignore');
    if (i < 0) i = this.slots.push('ignore') - 1;
    this.slots[i] = entry;
    return 3 + i;
  }

  /** The stdio entries from index 3 on. */
  stdio(): (number | 'ignore' | 'pipe')[] {
    return [...this.slots];
  }
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
    if (!Number.isInteger(fd) || fd < 3 || fd === devNull) continue;
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
 * missing command would be bwrap's exit 1 and a message on stderr, not 127. A command that exists
 * on the host but outside the sandbox's view is not found either, with the reason.
 */
function assertRunnable(file: string, path: string, cwd: string, view: SandboxView): void {
  if (file.includes('/')) {
    const full = resolve(cwd, file);
    const hidden = view.hint(full);
    if (hidden) throw new SpawnError('ENOENT', `spawn ${file} ENOENT: ${hidden}`);
    const st = statSync(full, { throwIfNoEntry: false });
    if (!st) throw new SpawnError('ENOENT', `spawn ${file} ENOENT`);
    if (st.isDirectory()) throw new SpawnError('EISDIR', `spawn ${file} EISDIR`);
    if (!isExecutable(full)) throw new SpawnError('EACCES', `spawn ${file} EACCES`);
    return;
  }
  if (!findExecutable(file, path, cwd)) throw new SpawnError('ENOENT', `spawn ${file} ENOENT`);
}

/** Real paths of the directories in `dirs` that exist. */
function existingDirs(dirs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue;
    try {
      if (statSync(dir).isDirectory()) out.add(realpathSync(dir));
    } catch {
      // absent: nothing to protect
    }
  }
  return [...out];
}

function oneLine(s: string): string {
  return s.replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 200);
}

/**
 * What no sandboxed command may see or move: the vault in use, `$AIRLOCK_VAULT`, and Airlock's
 * data directory (`$XDG_DATA_HOME/airlock` or `~/.local/share/airlock`: default vaults and the
 * agent's relay directories live there).
 */
export function protectedPaths(vaultRoot: string, env: NodeJS.ProcessEnv, home: string = homedir()): string[] {
  return [vaultRoot, airlockDataDir(env, home), ...(env.AIRLOCK_VAULT && isAbsolute(env.AIRLOCK_VAULT) ? [resolve(env.AIRLOCK_VAULT)] : [])];
}

/** Airlock's data directory: `$XDG_DATA_HOME/airlock`, else `~/.local/share/airlock`. */
export function airlockDataDir(env: NodeJS.ProcessEnv, home: string = homedir()): string {
  const xdg = env.XDG_DATA_HOME;
  return xdg && isAbsolute(xdg) ? join(xdg, 'airlock') : join(home, '.local', 'share', 'airlock');
}

/**
 * Whether this process runs inside one of Airlock's sandboxes: the marker file every sandbox
 * mounts read-only at its root (which nothing inside can remove: the root is read-only and no
 * capability is left to unmount it), or the variable the sandbox sets. A command could build a
 * root of its own without the marker (a nested user namespace), but that root holds only what
 * the sandbox showed it: no vault to decide on. The reverse is not claimed: outside a sandbox, the absence of
 * both proves nothing about who runs the process.
 */
export function insideAirlockSandbox(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.AIRLOCK_SANDBOX !== undefined) return true;
  return statSync(SANDBOX_MARKER, { throwIfNoEntry: false }) !== undefined;
}

/**
 * The first path the command line names (an argument, or a word of a `sh -c` script) that the
 * sandbox does not show, with why: `/tmp/build.sh: an MCP or agent capture gets an empty private
 * /tmp …`. A failed run that names one gets this as its envelope's `sandbox.hint`, so "No such
 * file or directory" points at the sandbox rather than leaving the reader to guess.
 */
export function explainHiddenPath(argv: readonly string[], cwd: string, hint: (path: string) => string | null): string | null {
  for (const arg of argv) {
    for (const word of arg.split(/[\s'"=;|&<>()`]+/)) {
      if (!/^(\/|\.\.?\/|~\/)/.test(word)) continue;
      const path = resolve(cwd, word.replace(/^~\//, `${homedir()}/`));
      const why = hint(path);
      if (why) return `${oneLine(word).slice(0, 120)}: ${why}`;
    }
  }
  return null;
}
