import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isWithin, locationsOf } from './mounts';
import { describeTmp, type TmpView } from './tmp-view';

/**
 * Whose command the sandbox runs, which decides what it shows beyond the system directories:
 * - `human`: `airlock capture` typed by a person: $HOME read-only, the host's /tmp read-only
 *   (its sockets and FIFOs left out) over a private writable /tmp;
 * - `strict`: `airlock mcp` (an agent's command): an empty private $HOME (only the tool
 *   directories on PATH and git's config read-only in it) and an empty private /tmp;
 * - `agent`: the agent itself (`airlock agent`): $HOME writable (the agent keeps its config
 *   there), a private /tmp.
 */
export type SandboxProfile = 'human' | 'strict' | 'agent';

/** A file the sandbox is given from Airlock: bwrap reads its content from descriptor `fd`. */
export interface DataFile {
  readonly path: string;
  readonly fd: number;
}

/** A host directory shown at `dest`: writable unless `readOnly`. */
export interface SandboxMount {
  readonly source: string;
  readonly dest: string;
  readonly readOnly?: boolean;
}

/** Everything a view depends on; paths absolute. */
export interface ViewRequest {
  readonly profile: SandboxProfile;
  /** Real path of the working directory, opened as descriptor `cwdFd` in bwrap. */
  readonly cwd: string;
  readonly cwdFd: number;
  /** Real paths of the directories no command may see or move (the vault, Airlock's data directory). */
  readonly protect: readonly string[];
  readonly home: string | null;
  /** The command's PATH: directories on it outside the view are shown read-only. */
  readonly path: string;
  /** Replaces a host file (the resolv.conf of an outbound sandbox). */
  readonly data?: readonly DataFile[];
  /** Host directories shown at a path of the sandbox (the agent's relay directory, an agent's installation). */
  readonly mounts?: readonly SandboxMount[];
  /** The host's /tmp as the human profile shows it (hostTmpView, scanned once by the plan); absent: a private /tmp. */
  readonly tmpView?: TmpView;
}

/** A decided view: bwrap's file-system arguments, and how to explain a path the command did not find. */
export interface SandboxView {
  readonly args: string[];
  /** Why `path` (absolute) is not what the command sees, or null when it is in the view. */
  hint(path: string): string | null;
}

/** The view cannot be built for this request (a working directory inside the vault, or under /proc). */
export class ViewError extends Error {
  override readonly name = 'ViewError';
}

/** File that exists at the root of every Airlock sandbox; see insideAirlockSandbox. */
export const SANDBOX_MARKER = '/.airlock-sandbox';

/** System directories shown read-only (a symbolic link, as /bin is on merged-/usr systems, stays one). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix'];
/** Never shown from the host, and no working directory: the kernel's and the session's live state. */
const HOST_ONLY = ['/proc', '/sys', '/dev', '/run', '/var/run'];
/** Devices of the minimal /dev (no terminal: no /dev/tty, no ptmx or pts to make one). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom'];

type Tree = { readonly path: string; readonly kind: 'ro' | 'rw' | 'system' | 'private-tmp' | 'private-home' | 'host-tmp' | 'masked' };

/**
 * Builds the sandbox's file system from an allowlist, in bwrap's order (a later mount covers an
 * earlier one): the system directories read-only; $HOME as the profile says; directories on PATH
 * outside those read-only; /tmp; a fresh /proc of the sandbox's own PID namespace; a minimal /dev;
 * the working directory read-write (bound from an open descriptor, so no path swapped in meanwhile
 * can redirect it). Nothing else of the host is there.
 *
 * The vault and Airlock's data directory (`protect`) are never in it, at any path a mount of their
 * file system shows them (see locationsOf): a working directory inside one is refused; where one
 * lies inside a shown directory it is covered with an empty tmpfs, and inside a writable directory
 * the way to it is also pinned — the first directory below the writable one is mounted read-only
 * onto itself — because a command could otherwise rename an ancestor (the mount would move with
 * it, and the next sandbox would cover only the empty old path).
 */
export function buildView(req: ViewRequest): SandboxView {
  const args: string[] = [];
  const trees: Tree[] = [];
  const protect = req.protect.flatMap((p) => locationsOf(p));
  const cwd = req.cwd;
  const inProtected = protect.find((l) => isWithin(cwd, l));
  // The message names no location: an agent learns nothing of where the vault is.
  if (inProtected) throw new ViewError("the working directory is inside Airlock's vault or data directory, which no sandbox shows");
  const hostOnly = HOST_ONLY.find((d) => isWithin(cwd, d));
  if (hostOnly) throw new ViewError(`the working directory ${cwd} is under ${hostOnly}, which the sandbox does not take from the host`);
  const shownBy = (p: string): Tree | undefined => {
    for (let i = trees.length - 1; i >= 0; i--) if (isWithin(p, trees[i].path)) return trees[i];
    return undefined;
  };
  /**
   * After a writable tree: pin the way from it to every protected location inside it. Each
   * directory between the two is bound onto itself, which makes it a mount point of the sandbox —
   * and a mount point cannot be renamed, moved or removed (EBUSY) — while it stays writable.
   */
  const pinWithin = (tree: string): void => {
    for (const l of protect) {
      if (l === tree || !isWithin(l, tree)) continue;
      let at = tree;
      for (const part of relative(tree, l).split(sep).slice(0, -1)) {
        at = join(at, part);
        args.push('--bind', at, at);
      }
    }
  };

  for (const dir of SYSTEM_DIRS) {
    const st = lstatQuiet(dir);
    if (st?.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (st?.isDirectory()) {
      args.push('--ro-bind', dir, dir);
      trees.push({ path: dir, kind: 'system' });
    }
  }

  // /tmp: private in every profile; a person's capture also sees the host's entries read-only.
  args.push('--tmpfs', '/tmp');
  const tmp = req.profile === 'human' ? req.tmpView : undefined;
  const tmpText = describeTmp(tmp);
  if (tmp?.kind === 'host') {
    trees.push({ path: '/tmp', kind: 'host-tmp' });
    for (const e of tmp.entries) {
      if (e.kind === 'link') args.push('--symlink', e.target!, e.path);
      else {
        // -try: /tmp changes all the time; an entry gone since the scan is simply not shown.
        args.push('--ro-bind-try', e.path, e.path);
        trees.push({ path: e.path, kind: 'ro' });
      }
    }
  } else {
    trees.push({ path: '/tmp', kind: 'private-tmp' });
  }
  // /var/tmp is the private /tmp too, unless the working directory is in it: a mount cannot go
  // through that link (bwrap refuses it), so the working directory is then bound at its own path.
  if (isWithin(cwd, '/var/tmp')) args.push('--dir', '/var/tmp');
  else args.push('--dir', '/var', '--symlink', '../tmp', '/var/tmp');
  args.push('--proc', '/proc');
  args.push('--tmpfs', '/dev');
  for (const d of DEVICES) args.push('--dev-bind', `/dev/${d}`, `/dev/${d}`);
  args.push('--tmpfs', '/dev/shm', '--symlink', '/proc/self/fd', '/dev/fd');
  ['stdin', 'stdout', 'stderr'].forEach((s, i) => args.push('--symlink', `/proc/self/fd/${i}`, `/dev/${s}`));
  // Nothing can be added to /dev (a file called tty would pass for one); /dev/shm stays writable.
  args.push('--remount-ro', '/dev');

  const home = usableHome(req.home);
  if (home && shownBy(home)?.kind !== 'system') {
    if (req.profile === 'human') {
      args.push('--ro-bind', home, home);
      trees.push({ path: home, kind: 'ro' });
    } else if (req.profile === 'agent') {
      args.push('--bind', home, home);
      trees.push({ path: home, kind: 'rw' });
      pinWithin(home);
    } else {
      args.push('--perms', '0700', '--tmpfs', home);
      trees.push({ path: home, kind: 'private-home' });
      for (const tool of homeTools(home, req.path)) {
        args.push('--ro-bind-try', tool, tool);
        trees.push({ path: tool, kind: 'ro' });
      }
    }
  }

  for (const dir of pathDirs(req.path)) {
    const by = shownBy(dir);
    if (by && by.kind !== 'private-home' && by.kind !== 'private-tmp') continue;
    if (dir === '/' || HOST_ONLY.some((h) => isWithin(dir, h)) || isWithin(dir, '/tmp')) continue;
    if (home && isWithin(dir, home) && req.profile === 'strict') continue; // shown as a tool directory above, or not at all
    if (protect.some((l) => isWithin(dir, l) || isWithin(l, dir))) continue;
    args.push('--ro-bind-try', dir, dir);
    trees.push({ path: dir, kind: 'ro' });
  }

  // The working directory: read-write, unless it is the root, a system directory or the private /tmp.
  const cwdBy = shownBy(cwd);
  const bindCwd = cwd !== '/' && cwdBy?.kind !== 'system' && !(cwd === '/tmp') && !(cwd === home && req.profile === 'agent');
  if (bindCwd) {
    args.push('--bind-fd', String(req.cwdFd), cwd);
    trees.push({ path: cwd, kind: 'rw' });
    pinWithin(cwd);
  }
  for (const m of req.mounts ?? []) {
    if (!m.readOnly && protect.some((l) => isWithin(l, m.source))) throw new ViewError(`${m.source} holds Airlock's vault or data directory; it cannot be shown`);
    args.push(m.readOnly ? '--ro-bind' : '--bind', m.source, m.dest);
    trees.push({ path: m.dest, kind: m.readOnly ? 'ro' : 'rw' });
  }

  // Last, so nothing mounted after can show them again: an empty tmpfs over every protected location in view.
  for (const l of protect) {
    if (!shownBy(l) || shownBy(l)!.kind === 'private-tmp' || shownBy(l)!.kind === 'private-home') continue;
    args.push('--perms', '0000', '--tmpfs', l);
    trees.push({ path: l, kind: 'masked' });
  }
  for (const d of req.data ?? []) {
    if (!shownBy(d.path)) args.push('--dir', dirname(d.path));
    args.push('--ro-bind-data', String(d.fd), d.path);
  }
  args.push('--ro-bind', '/dev/null', SANDBOX_MARKER, '--remount-ro', '/', '--chdir', cwd);

  const hint = (p: string): string | null => {
    if (!isAbsolute(p)) return null;
    if (protect.some((l) => isWithin(p, l))) return "it is in Airlock's vault or data directory, which no sandbox shows";
    const by = shownBy(p);
    if (!by) {
      const shown = ['/usr', '/etc', '/opt', 'the working directory', ...(req.profile === 'human' && home ? [`${home} (read-only)`] : []), '/tmp'];
      return `it is not in the sandbox's view, which shows only ${shown.join(', ')}`;
    }
    if (by.kind === 'private-tmp') return req.profile === 'human' ? `/tmp is private in this capture (${tmpText})` : "an MCP or agent capture gets an empty private /tmp: the host's /tmp is not in it (a person's 'airlock capture' sees it read-only)";
    if (by.kind === 'private-home') return `an MCP capture gets an empty private ${home}: only the tool directories on PATH and git's configuration are shown in it`;
    if (by.kind === 'host-tmp') return "it was not in the host's /tmp when the capture started, or it is (or is in a directory that holds) a socket or FIFO, which the sandbox leaves out";
    if (by.kind === 'masked') return "it is in Airlock's vault or data directory, which no sandbox shows";
    return null;
  };
  return { args, hint };
}

/** $HOME when it is an absolute, existing directory other than the root. */
function usableHome(home: string | null): string | null {
  if (!home || !isAbsolute(home)) return null;
  try {
    const real = realpathSync(home);
    return real !== '/' && statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/**
 * What an MCP capture's private $HOME shows read-only: each top-level directory of $HOME that holds
 * a PATH entry (~/.pyenv, ~/.cargo, ~/.nvm: installed tools), rustup's toolchains beside cargo's
 * shims, and git's configuration (so `git commit` knows who commits).
 */
function homeTools(home: string, path: string): string[] {
  const out = new Set<string>();
  for (const dir of pathDirs(path)) {
    if (dir === home || !isWithin(dir, home)) continue;
    out.add(join(home, relative(home, dir).split(sep)[0]));
  }
  if (out.has(join(home, '.cargo'))) out.add(join(home, '.rustup'));
  out.add(join(home, '.gitconfig'));
  out.add(join(home, '.config', 'git'));
  return [...out].filter((p) => lstatQuiet(p) !== null && !lstatQuiet(p)!.isSymbolicLink()).sort();
}

/** The existing directories on PATH, as real paths. */
function pathDirs(path: string): string[] {
  const out = new Set<string>();
  for (const entry of path.split(delimiter)) {
    if (!isAbsolute(entry)) continue;
    try {
      const real = realpathSync(resolve(entry));
      if (statSync(real).isDirectory()) out.add(real);
    } catch {
      // absent
    }
  }
  return [...out];
}

function lstatQuiet(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
