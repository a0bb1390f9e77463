import { lstatSync, readdirSync, readlinkSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';

/**
 * Directories that hold a desktop's sockets (X11, ICE, fonts, input methods): never shown, even
 * when they hold nothing a scan would find (a socket can appear in them after the scan).
 */
export const SOCKET_DIRS: readonly string[] = ['.X11-unix', '.ICE-unix', '.font-unix', '.XIM-unix', '.Test-unix'];

/**
 * Bounds of the scan below: a /tmp beyond them is not shown at all (a private /tmp instead). Each
 * top-level entry is one bwrap mount, paid by every capture before the command starts, and bwrap's
 * cost per mount grows with the mounts already made (docs/performance.md has the measurements):
 * this many keeps it near a tenth of a second.
 */
export const MAX_TOP_ENTRIES = 256;
const MAX_SCANNED = 20_000;
const SCAN_DEPTH = 3;

/** What a person's capture shows of the host's /tmp, as bwrap arguments laid over a private tmpfs. */
export type TmpView =
  | {
      readonly kind: 'host';
      /** The host's /tmp entries, each read-only at its own path (links recreated as links). */
      readonly entries: readonly { readonly path: string; readonly kind: 'dir' | 'file' | 'link'; readonly target?: string }[];
      /** Entries left out because they are, or hold, a socket or FIFO. */
      readonly left: number;
    }
  | { readonly kind: 'private'; readonly reason: string };

/**
 * The host's /tmp for a person's capture: every entry read-only at its own path over a private,
 * writable tmpfs (so `cat /tmp/x.log` works, new files stay in the sandbox), minus what lets a
 * command talk to a running program: a socket or FIFO, or a directory holding one within three
 * levels (tmux's, an ssh agent's, a browser's), is left out whole, and so are the desktop's socket
 * directories ({@link SOCKET_DIRS}) whatever they hold. Only top-level entries are mounted, so an
 * entry that disappears meanwhile (bound with --ro-bind-try) cannot make the sandbox fail. A /tmp
 * too large to scan within bounds gives a private /tmp instead, and says so.
 */
export function hostTmpView(tmp = '/tmp'): TmpView {
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch (err) {
    return { kind: 'private', reason: `the host's ${tmp} cannot be read (${(err as { code?: string }).code ?? 'error'})` };
  }
  if (names.length > MAX_TOP_ENTRIES) return { kind: 'private', reason: `the host's ${tmp} holds more than ${MAX_TOP_ENTRIES} entries` };
  const entries: { path: string; kind: 'dir' | 'file' | 'link'; target?: string }[] = [];
  let left = 0;
  let scanned = 0;
  /** 'socket' when `dir` holds a socket or FIFO within the scan depth, 'over' past the bounds. */
  const scan = (dir: string, depth: number): 'clean' | 'socket' | 'over' => {
    let inner: Dirent[];
    try {
      // The entry types come with the listing (d_type): no stat per entry.
      inner = readdirSync(dir, { withFileTypes: true });
    } catch {
      return 'clean'; // unreadable to us: unreadable to the command too
    }
    for (const e of inner) {
      if (++scanned > MAX_SCANNED) return 'over';
      if (e.isSocket() || e.isFIFO()) return 'socket';
      if (e.isDirectory() && depth < SCAN_DEPTH) {
        const inside = scan(join(dir, e.name), depth + 1);
        if (inside !== 'clean') return inside;
      }
    }
    return 'clean';
  };
  for (const name of names.sort()) {
    const path = join(tmp, name);
    const st = lstatQuiet(path);
    if (!st) continue;
    if (SOCKET_DIRS.includes(name) || st.isSocket() || st.isFIFO()) {
      left++;
      continue;
    }
    if (st.isSymbolicLink()) {
      // Recreated as a link, so it resolves inside the sandbox's view (binding it would follow it).
      let target: string;
      try {
        target = readlinkSync(path);
      } catch {
        continue;
      }
      entries.push({ path, kind: 'link', target });
    } else if (st.isDirectory()) {
      const inside = scan(path, 2);
      if (inside === 'over') return { kind: 'private', reason: `the host's ${tmp} holds more than ${MAX_SCANNED} entries within ${SCAN_DEPTH} levels` };
      if (inside === 'socket') left++;
      else entries.push({ path, kind: 'dir' });
    } else if (st.isFile()) {
      entries.push({ path, kind: 'file' });
    }
  }
  return { kind: 'host', entries, left };
}

function lstatQuiet(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** What a command's /tmp is, in a few words (the envelope's sandbox reason, a path's hint). */
export function describeTmp(view: TmpView | undefined): string {
  if (view === undefined) return 'a private /tmp';
  if (view.kind === 'private') return `a private /tmp (${view.reason})`;
  return "the host's /tmp read-only (without sockets, FIFOs and directories that hold them) over a private writable /tmp";
}
