// The sandbox's view beyond the findings: the mount aliases it covers, the host /tmp a person's
// capture sees, the hint for a path it does not show, the outbound network, and the vault's room.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildView } from '../../app/capture/sandbox-view';
import { locationsOf } from '../../app/capture/mounts';
import { hostTmpView, MAX_TOP_ENTRIES } from '../../app/capture/tmp-view';
import { findExecutable } from '../../app/capture/executable';
import { airlock, BIN, BUILT, mcpProcess, startHelper, structured } from '../helpers/custody';
import { bwrapUnavailable } from '../helpers/sandbox';

const skip = BUILT ? await bwrapUnavailable() : 'dist/airlock.mjs is missing; run `npm run build`';
if (skip) console.warn(`sandbox view tests skipped: ${skip}`);
const base = mkdtempSync(join(tmpdir(), 'airlock-view-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
function fresh(): string {
  const dir = join(base, `t${++n}`);
  mkdirSync(dir);
  return dir;
}

describe('where the vault can be reached (mountinfo)', () => {
  it('maps every mount of its file system whose root lies above it, and keeps only paths that show it', () => {
    const dir = fresh();
    const vault = join(dir, 'home', 'vault');
    mkdirSync(vault, { recursive: true });
    const info = readFileSync('/proc/self/mountinfo', 'utf8');
    const own = info.split('\n').filter((l) => l && (dir + '/').startsWith(l.split(' ')[4].replace(/\/?$/, '/'))).map((l) => l.split(' ')).sort((a, b) => b[4].length - a[4].length)[0];
    const inFs = join(own[3], dir.slice(own[4] === '/' ? 0 : own[4].length));
    // A mount of the same file system showing `dir/home` at `dir/shown` (here a link stands in for
    // the mount, so the path really shows the vault); one at `dir/gone` that shows nothing; one of
    // another device.
    symlinkSync(join(dir, 'home'), join(dir, 'shown'));
    const extra = [
      `900 1 ${own[2]} ${join(inFs, 'home')} ${join(dir, 'shown')} rw - x x rw`,
      `901 1 ${own[2]} ${join(inFs, 'home')} ${join(dir, 'gone')} rw - x x rw`,
      `902 1 0:999 / ${join(dir, 'other')} rw - tmpfs x rw`,
    ].join('\n');
    expect(locationsOf(vault, `${info}\n${extra}`).sort()).toEqual([join(dir, 'shown', 'vault'), vault].sort());
  });

  it.skipIf(process.getuid?.() !== 0 || skip !== null)('as root: a bind mount of the home elsewhere shows the vault there too, and the sandbox covers both', () => {
    const dir = fresh();
    const home = join(dir, 'home');
    const vault = join(home, 'vault');
    const alias = join(dir, 'alias');
    mkdirSync(alias);
    expect(airlock(['capture', '--vault', vault, '--sandbox', 'none', '--', 'printf', 'BOUND-SECRET'], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } }).code).toBe(0);
    expect(spawnSync('mount', ['--bind', home, alias]).status).toBe(0);
    try {
      expect(locationsOf(vault).sort()).toEqual([join(alias, 'vault'), vault].sort());
      // The working directory is the alias: the vault inside it is covered there too, and cannot be moved.
      const r = airlock(['capture', '--vault', vault, '--json', '--', 'sh', '-c', 'cat vault/raw/sha256/*/* 2>/dev/null | grep -c BOUND-SECRET; mv vault v2; echo mv=$?'], { cwd: alias, env: { PATH: process.env.PATH, HOME: dir } });
      expect(JSON.parse(r.out).stdout).toMatch(/^0\nmv=[1-9]\d*\n$/);
    } finally {
      spawnSync('umount', ['-l', alias]);
    }
  });
});

describe('the view', () => {
  it('binds no host root, and covers the vault under a writable directory after pinning the way to it', () => {
    const dir = fresh();
    const vault = join(dir, 'a', 'b', 'vault');
    mkdirSync(vault, { recursive: true });
    const { args } = buildView({ profile: 'human', cwd: dir, cwdFd: 3, protect: [vault], home: null, path: '/usr/bin', tmpView: { kind: 'private', reason: 'test' } });
    const s = args.join(' ');
    expect(s).not.toMatch(/--(ro-)?bind \/ \//);
    expect(s).toContain(`--bind-fd 3 ${dir}`);
    // a and a/b become mount points of the sandbox (no rename), the vault an empty, closed tmpfs.
    const at = (x: string): number => s.indexOf(x);
    expect(at(`--bind ${dir}/a ${dir}/a`)).toBeGreaterThan(at(`--bind-fd 3 ${dir}`));
    expect(at(`--bind ${dir}/a/b ${dir}/a/b`)).toBeGreaterThan(at(`--bind ${dir}/a ${dir}/a`));
    expect(at(`--perms 0000 --tmpfs ${vault}`)).toBeGreaterThan(at(`--bind ${dir}/a/b ${dir}/a/b`));
  });

  it('refuses a working directory inside the vault, or under /proc, /sys, /dev or /run', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'v', 'x'), { recursive: true });
    expect(() => buildView({ profile: 'strict', cwd: join(dir, 'v', 'x'), cwdFd: 3, protect: [join(dir, 'v')], home: null, path: '' })).toThrow(/inside Airlock's vault/);
    for (const d of ['/proc', '/sys/kernel', '/dev', '/run']) expect(() => buildView({ profile: 'strict', cwd: d, cwdFd: 3, protect: [], home: null, path: '' })).toThrow(/does not take from the host/);
  });

  it("says why a path the command names is not there: the vault, MCP's private /tmp, outside the view", () => {
    const dir = fresh();
    const view = buildView({ profile: 'strict', cwd: dir, cwdFd: 3, protect: [join(dir, 'vault')], home: null, path: '/usr/bin' });
    mkdirSync(join(dir, 'vault'));
    expect(view.hint('/tmp/build.sh')).toMatch(/private \/tmp/);
    expect(view.hint('/srv/data/x')).toMatch(/not in the sandbox's view/);
    expect(view.hint(join(dir, 'file'))).toBeNull();
    expect(view.hint('/usr/bin/env')).toBeNull();
  });
});

describe("a person's /tmp", () => {
  it('shows files and directories, and leaves out sockets, FIFOs, directories holding them and the X11 socket directory', () => {
    const tmp = fresh();
    writeFileSync(join(tmp, 'x.log'), 'log');
    mkdirSync(join(tmp, 'build', 'deep'), { recursive: true });
    mkdirSync(join(tmp, '.X11-unix'));
    mkdirSync(join(tmp, 'tmux-0'));
    spawnSync('mkfifo', [join(tmp, 'tmux-0', 'default'), join(tmp, 'top.fifo')]);
    const v = hostTmpView(tmp);
    if (v.kind !== 'host') throw new Error(v.reason);
    expect(v.entries.map((e) => e.path.slice(tmp.length + 1)).sort()).toEqual(['build', 'x.log']);
    expect(v.left).toBe(3);
  });

  it(`is private, and says why, when the host's /tmp holds more than ${MAX_TOP_ENTRIES} entries (each one is a mount every capture pays for)`, () => {
    const tmp = fresh();
    for (let i = 0; i < MAX_TOP_ENTRIES; i++) writeFileSync(join(tmp, `f${i}`), '');
    expect(hostTmpView(tmp)).toMatchObject({ kind: 'host', left: 0 });
    writeFileSync(join(tmp, 'one-more'), '');
    expect(hostTmpView(tmp)).toEqual({ kind: 'private', reason: `the host's ${tmp} holds more than ${MAX_TOP_ENTRIES} entries` });
  });

  it.skipIf(skip !== null)('runs from /var/tmp (the link /var/tmp -> /tmp cannot be mounted over, so it is left out there)', () => {
    const dir = fresh();
    const r = airlock(['capture', '--vault', join(dir, 'v'), '--network', 'none', '--json', '--', 'sh', '-c', 'pwd; echo x > /tmp/w && cat /tmp/w'], { cwd: '/var/tmp', env: { PATH: process.env.PATH, HOME: dir } });
    expect(JSON.parse(r.out)).toMatchObject({ exit_code: 0, stdout: '/var/tmp\nx\n' });
  });

  it.skipIf(skip !== null)('a capture reads a file in the host /tmp, cannot change it, and writes only to its own /tmp', () => {
    const dir = fresh();
    const file = join(tmpdir(), `airlock-view-${process.pid}.log`);
    writeFileSync(file, 'from the host\n');
    try {
      const r = airlock(['capture', '--vault', join(dir, 'v'), '--json', '--', 'sh', '-c', `cat ${file}; echo x >> ${file}; echo append=$?; echo new > /tmp/airlock-view-new-${process.pid} && echo wrote`], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      const envelope = JSON.parse(r.out);
      if (/holds more than \d+ entries/.test(envelope.sandbox.reason)) {
        // This machine's /tmp is too crowded to be shown (other test runs): the capture's /tmp is private.
        console.warn(`host /tmp not shown: ${envelope.sandbox.reason}`);
        expect(envelope.stdout).toMatch(/^append=0\nwrote\n$/);
      } else {
        expect(envelope.stdout).toMatch(/^from the host\nappend=[1-9]\d*\nwrote\n$/);
      }
      expect(readFileSync(file, 'utf8')).toBe('from the host\n');
      expect(spawnSync('ls', [`/tmp/airlock-view-new-${process.pid}`]).status).not.toBe(0);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it.skipIf(skip !== null)("an MCP capture that runs a script from the host /tmp fails, and the envelope's hint says why", async () => {
    const dir = fresh();
    const script = join(tmpdir(), `airlock-view-build-${process.pid}.sh`);
    writeFileSync(script, 'echo built\n');
    const mcp = await mcpProcess(['--vault', join(dir, 'v')], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    try {
      const r = structured<{ exit_code: number; stderr: string; sandbox_hint?: string }>(await mcp.call('capture', { argv: ['sh', script] }));
      expect(r.exit_code).not.toBe(0);
      expect(r.stderr).toMatch(/No such file|can't open/);
      expect(r.sandbox_hint).toBe(`${script}: an MCP or agent capture gets an empty private /tmp: the host's /tmp is not in it (a person's 'airlock capture' sees it read-only)`);
    } finally {
      await mcp.close();
      rmSync(script, { force: true });
    }
  });
});

/** This host's first non-loopback IPv4 address: what a sandbox with outbound network reaches like any other host. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
const noOutbound = skip ?? (!findExecutable('slirp4netns', process.env.PATH ?? '', '/') ? 'slirp4netns is not installed' : !external ? 'this host has no non-loopback IPv4 address to serve on' : null);

describe.skipIf(noOutbound !== null)(`outbound network${noOutbound ? ` (skipped: ${noOutbound})` : ''}`, () => {
  it('reaches a server on another address (git clone over HTTP works), and --network none does not', async () => {
    const dir = fresh();
    // A bare repository served over git's "dumb" HTTP protocol: plain files, from another process.
    const git = (args: string[], cwd: string): void => void expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).status).toBe(0);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'hello.txt'), 'hello from the server\n');
    git(['init', '-q'], join(dir, 'src'));
    git(['add', '.'], join(dir, 'src'));
    git(['commit', '-qm', 'one'], join(dir, 'src'));
    mkdirSync(join(dir, 'www'));
    git(['clone', '-q', '--bare', join(dir, 'src'), join(dir, 'www', 'repo.git')], dir);
    git(['update-server-info'], join(dir, 'www', 'repo.git'));
    const server = await startHelper([
      '/usr/bin/python3',
      '-c',
      `import http.server, functools
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=${JSON.stringify(join(dir, 'www'))})
h.log_message = lambda *a: None
s = http.server.ThreadingHTTPServer((${JSON.stringify(external)}, 0), h)
print("ready", s.server_address[1], flush=True)
s.serve_forever()`,
    ]);
    try {
      const port = /ready (\d+)/.exec(server.out())![1];
      const work = fresh();
      const env = { PATH: process.env.PATH, HOME: work };
      const url = `http://${external}:${port}/repo.git`;
      const out = JSON.parse(airlock(['capture', '--vault', join(work, 'v'), '--json', '--', 'sh', '-c', `git clone -q ${url} cloned && cat cloned/hello.txt`], { cwd: work, env }).out);
      expect(out.sandbox.network).toMatchObject({ requested: 'default', used: 'outbound', via: 'slirp4netns' });
      expect(out.stdout).toBe('hello from the server\n');
      const none = JSON.parse(airlock(['capture', '--vault', join(work, 'v'), '--json', '--network', 'none', '--', 'sh', '-c', `git clone -q ${url} again 2>/dev/null; echo rc=$?`], { cwd: work, env }).out);
      expect(none.sandbox.network).toMatchObject({ requested: 'none', used: 'none' });
      expect(none.stdout).toMatch(/rc=[1-9]/);
    } finally {
      server.stop();
    }
  });
});

/** Live (not zombie) processes whose parent is `ppid` and whose command is `name`. */
function children(ppid: number, name: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid && fields[0] !== 'Z' && stat.includes(`(${name})`)) out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
}

describe.skipIf(noOutbound !== null)('the network helper', () => {
  it('ends with Airlock, even when Airlock is killed outright', async () => {
    const dir = fresh();
    const capture = spawn(process.execPath, [BIN, 'capture', '--vault', join(dir, 'v'), '--', 'sleep', '30'], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, stdio: 'ignore' });
    let slirp: number[] = [];
    for (let i = 0; i < 100 && slirp.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      slirp = children(capture.pid!, 'slirp4netns');
    }
    expect(slirp).toHaveLength(1);
    capture.kill('SIGKILL');
    const gone = (pid: number): boolean => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
      } catch {
        return true;
      }
    };
    for (let i = 0; i < 100 && !gone(slirp[0]); i++) await new Promise((r) => setTimeout(r, 50));
    expect(gone(slirp[0])).toBe(true);
  });
});

describe.skipIf(process.getuid?.() !== 0 || !BUILT)('the vault keeps room to record', () => {
  it('a capture does not start on a vault whose disk is nearly full', () => {
    const mnt = fresh();
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt]).status !== 0) return; // not permitted here
    try {
      const r = airlock(['capture', '--vault', join(mnt, 'v'), '--sandbox', 'none', '--', 'sh', '-c', 'touch ran'], { cwd: mnt, env: { PATH: process.env.PATH, HOME: mnt } });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/less than 4 MiB free/);
      expect(spawnSync('ls', [join(mnt, 'ran')]).status).not.toBe(0);
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});
