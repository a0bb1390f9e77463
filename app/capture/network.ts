import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable, Writable } from 'node:stream';
import { findExecutable } from './executable';

/**
 * The network a sandboxed command gets:
 * - `none`: its own network namespace with only a loopback interface of its own;
 * - `outbound`: its own namespace with a user-mode NAT (slirp4netns) to the outside: it reaches
 *   other hosts (and this host's non-loopback addresses, as any machine on the LAN would), never
 *   the host's 127.0.0.1 services nor its abstract Unix sockets (X11, D-Bus), which are bound to
 *   the host's namespace;
 * - `host`: the host's namespace, with everything in it. Only when asked for by name.
 */
export type NetworkMode = 'none' | 'outbound' | 'host';

/** Every accepted {@link NetworkMode}, in the order usage texts list them. */
export const NETWORK_MODES: readonly NetworkMode[] = ['none', 'outbound', 'host'];

/** What the envelope says about the network: asked for (`default` when not named), given, and how. */
export interface NetworkInfo {
  readonly requested: NetworkMode | 'default';
  readonly used: NetworkMode;
  /** The user-mode network helper for `outbound`, else null. */
  readonly via: 'slirp4netns' | null;
  readonly reason: string;
}

/** A network decided before anything runs. */
export type NetworkPlan = NetworkInfo & { readonly helper: string | null };

/** Why the network cannot be had as asked (`--network outbound` without slirp4netns). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

/** What a `--network host` run is warned about. */
export const HOST_NETWORK_WARNING =
  "--network host: the command shares this host's network namespace: it can connect to services on 127.0.0.1 and to abstract Unix sockets (an X server's @/tmp/.X11-unix, D-Bus), through which it could type into this desktop";

/**
 * Decides the network. Default (`requested` undefined): `outbound` where slirp4netns is installed,
 * else `none`, with the reason. `outbound` named without slirp4netns is a NetworkError.
 */
export function planNetwork(requested: NetworkMode | undefined, env: NodeJS.ProcessEnv): NetworkPlan {
  const asked = requested ?? 'default';
  if (requested === 'none') return { requested: asked, used: 'none', via: null, helper: null, reason: 'own network namespace, loopback only (--network none)' };
  if (requested === 'host') return { requested: asked, used: 'host', via: null, helper: null, reason: HOST_NETWORK_WARNING.replace('--network host: ', 'shared with the host (--network host): ') };
  const helper = findExecutable('slirp4netns', env.PATH ?? '', '/');
  if (helper) {
    return { requested: asked, used: 'outbound', via: 'slirp4netns', helper, reason: "own network namespace with outbound NAT through slirp4netns; the host's loopback and abstract sockets are out of reach" };
  }
  if (requested === 'outbound') throw new NetworkError('--network outbound needs slirp4netns (Debian: apt-get install slirp4netns), which is not installed or not on PATH');
  return { requested: asked, used: 'none', via: null, helper: null, reason: 'own network namespace, loopback only: slirp4netns (for outbound network) is not installed' };
}

/**
 * What /etc/resolv.conf must say inside an `outbound` sandbox, or null when the host's file can
 * stay: slirp4netns answers DNS at 10.0.2.3 and forwards it to the host's resolvers, but a host
 * that names a loopback resolver (systemd-resolved's 127.0.0.53) would leave the sandbox with a
 * nameserver that is its own empty loopback.
 */
export function sandboxResolvConf(path = '/etc/resolv.conf'): { readonly path: string; readonly text: string } | null {
  let text: string;
  let real: string;
  try {
    real = realpathSync(path);
    text = readFileSync(real, 'utf8');
  } catch {
    return { path, text: 'nameserver 10.0.2.3\n' };
  }
  const loopback = /^\s*nameserver\s+(127\.|::1\b)/m.test(text);
  return loopback ? { path: real, text: 'nameserver 10.0.2.3\n' } : null;
}

/** How long the helper may take to set up the namespace before the capture gives up. */
const HELPER_READY_MS = 10_000;

/**
 * Connects a sandbox that waits on bwrap's --block-fd to the outside: reads the sandbox's pid from
 * bwrap's --info-fd, starts slirp4netns on its network namespace, and once the tap device is up
 * releases the block, so the command never runs before its network exists. Resolves to the
 * function that stops the helper; rejects (the caller stops the sandbox) when setup fails.
 */
export async function attachOutbound(helper: string, info: Readable, block: Writable): Promise<() => Promise<void>> {
  const pid = await childPid(info);
  await loopbackReady(pid);
  // The sandbox's own user namespace owns its network namespace: slirp4netns joins both. Its
  // --exit-fd is a pipe only this process holds: if Airlock dies (SIGKILL, a crash) the pipe
  // closes and slirp4netns ends with it, instead of running on for a sandbox that is gone.
  const args = ['--configure', '--mtu=65520', '--disable-host-loopback', `--userns-path=/proc/${pid}/ns/user`, '--ready-fd=3', '--exit-fd=4', String(pid), 'tap0'];
  const slirp = spawn(helper, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  (slirp.stdio[4] as Writable).on('error', () => undefined);
  let err = '';
  slirp.stderr!.on('data', (d: Buffer) => (err = (err + d.toString('utf8')).slice(-400)));
  const stop = (): Promise<void> => stopProcess(slirp);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('slirp4netns did not become ready in time')), HELPER_READY_MS);
      (slirp.stdio[3] as Readable).once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      slirp.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`slirp4netns exited (${code}): ${err.replace(/[^\x20-\x7e]+/g, ' ').trim().slice(0, 200)}`));
      });
      slirp.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    block.end('1');
  } catch (e) {
    await stop();
    throw e;
  }
  return stop;
}

/**
 * Waits until bwrap has set up the sandbox's own loopback (127.0.0.1 in its network namespace's
 * routing table): slirp4netns brings `lo` up too, and the two configuring it at once makes
 * bwrap's setup fail. bwrap reports the pid before it has done so.
 */
async function loopbackReady(pid: number): Promise<void> {
  const own = readlinkQuiet('/proc/self/ns/net');
  const deadline = Date.now() + HELPER_READY_MS;
  for (;;) {
    const ns = readlinkQuiet(`/proc/${pid}/ns/net`);
    if (ns === null) throw new Error('the sandbox ended before its network was set up');
    if (ns !== own) {
      try {
        if (readFileSync(`/proc/${pid}/net/fib_trie`, 'utf8').includes('127.0.0.1')) return;
      } catch {
        // not readable yet
      }
    }
    if (Date.now() > deadline) throw new Error("bwrap did not set up the sandbox's loopback in time");
    await sleep(2);
  }
}

function readlinkQuiet(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** The `child-pid` bwrap writes as JSON to its --info-fd. */
function childPid(info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => done(new Error('bwrap did not report its sandbox')), HELPER_READY_MS);
    const onData = (d: Buffer): void => {
      text += d.toString('utf8');
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (m) done(null, Number(m[1]));
    };
    const onEnd = (): void => done(new Error('bwrap ended before it reported its sandbox'));
    function done(e: Error | null, pid?: number): void {
      clearTimeout(timer);
      info.off('data', onData);
      info.off('end', onEnd);
      if (e) reject(e);
      else resolve(pid!);
    }
    info.on('data', onData);
    info.once('end', onEnd);
  });
}

function stopProcess(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    p.once('exit', () => resolve());
    p.kill('SIGTERM');
  });
}
