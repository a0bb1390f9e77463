import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildView, childEnvironment, planSandbox, protectedPaths, SandboxError, type SandboxMode } from '../../app/capture';
import { captureToVault } from '../../app/capture/stored-capture';
import { parseSandboxMode } from '../../app/cli/sandbox-flag';
import { UsageError } from '../../app/cli/command';
import { Vault } from '../../app/vault';
import { bwrapUnavailable } from '../helpers/sandbox';

const skip = await bwrapUnavailable();
if (skip) console.warn(`bubblewrap sandbox tests skipped: ${skip}`);

let base: string;
let vault: Vault;
let work: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'airlock-sandbox-'));
  vault = await Vault.open(join(base, 'vault'), { create: true });
  work = join(base, 'work');
  mkdirSync(work);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs `sh -c script` through the same path airlock capture and airlock mcp use. */
async function run(mode: SandboxMode, argv: string[], cwd = work): Promise<{ stdout: string; stderr: string; exit: number; sandbox: string }> {
  const sandbox = await planSandbox(mode, { protect: protectedPaths(vault.root, process.env), profile: 'strict' });
  const { env, summary } = childEnvironment({ PATH: process.env.PATH, HOME: process.env.HOME }, []);
  const { envelope } = await captureToVault({ vault, argv, cwd, env, envSummary: summary, maxBytes: 1 << 20, maxText: 1 << 20, cr: 'newline', limits: {}, timeoutMs: 30_000, sandbox });
  return { stdout: envelope.stdout, stderr: envelope.stderr, exit: envelope.exit_status, sandbox: envelope.sandbox.used };
}

/** A raw file of the vault with known bytes (the capture of a marker). */
async function storeMarker(): Promise<void> {
  await run('none', ['sh', '-c', 'printf RAW-VAULT-MARKER-7c1']);
}

describe('sandbox flags', () => {
  it('parses --sandbox and refuses anything else with one line', () => {
    expect(parseSandboxMode(undefined)).toBe('auto');
    expect(parseSandboxMode('bwrap')).toBe('bwrap');
    expect(() => parseSandboxMode('docker')).toThrow(UsageError);
    expect(() => parseSandboxMode('docker')).toThrow(/--sandbox must be auto, bwrap, none, not 'docker'/);
  });

  it('builds the view from a list, binds the working directory from its descriptor, and covers the vault last', () => {
    const { args } = buildView({ profile: 'strict', cwd: work, cwdFd: 7, protect: [vault.root], home: null, path: '/usr/bin' });
    const at = (flag: string, value: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    expect(args.join(' ')).not.toMatch(/bind \/ \//); // no bind of the host root
    expect(at('--ro-bind', '/usr')).toBeGreaterThanOrEqual(0);
    expect(at('--tmpfs', '/tmp')).toBeGreaterThanOrEqual(0);
    expect(at('--proc', '/proc')).toBeGreaterThanOrEqual(0);
    expect(args.slice(at('--bind-fd', '7'), at('--bind-fd', '7') + 3)).toEqual(['--bind-fd', '7', work]);
    expect(args).not.toContain('/dev/pts');
    expect(args.slice(-4)).toEqual(['--remount-ro', '/', '--chdir', work]);
  });

  it('auto without bwrap on PATH falls back and says why; bwrap refuses', async () => {
    const env = { PATH: '/nonexistent-dir' };
    const plan = await planSandbox('auto', { protect: [], profile: 'strict' }, env);
    expect(plan.info).toMatchObject({ requested: 'auto', used: 'none', reason: 'no sandbox: bwrap (bubblewrap) is not installed or not on PATH', network: { used: 'host' } });
    expect(plan.launch).toBeUndefined();
    await expect(planSandbox('bwrap', { protect: [], profile: 'strict' }, env)).rejects.toThrow(SandboxError);
  });

  it('none runs the command unwrapped and says so', async () => {
    const plan = await planSandbox('none', { protect: [], profile: 'strict' });
    expect(plan.info.used).toBe('none');
    expect(plan.launch).toBeUndefined();
  });
});

// The controls without the sandbox show that each escape below is real, so the bwrap assertions can fail.
describe('without the sandbox (control: the escapes work)', () => {
  it('a command writes through /proc/$PPID/fd into a descriptor of its parent', async () => {
    const target = join(base, 'parent-fd-none.txt');
    const fd = openSync(target, 'w');
    try {
      // The parent here is this test process (no sandbox wrapper): its descriptor `fd` is reachable.
      const r = await run('none', ['sh', '-c', `printf ESCAPED > /proc/$PPID/fd/${fd}; echo rc=$?`]);
      expect(r.stdout).toBe('rc=0\n');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(target, 'utf8')).toBe('ESCAPED');
  });

  it('a command reads the raw vault', async () => {
    await storeMarker();
    const r = await run('none', ['sh', '-c', `cat "${vault.root}"/raw/sha256/*/*`]);
    expect(r.stdout).toContain('RAW-VAULT-MARKER-7c1');
  });
});

describe.skipIf(skip !== null)(`under bwrap${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('runs under bwrap and records it', async () => {
    const r = await run('auto', ['true']);
    expect(r.sandbox).toBe('bwrap');
  });

  it('cannot write to /proc/$PPID/fd/1 nor reach the parent process', async () => {
    const r = await run('bwrap', ['sh', '-c', 'printf FORGED > /proc/$PPID/fd/1; echo rc=$?; echo ppid=$PPID; ls /proc | grep -c "^[0-9]"']);
    expect(r.stdout).toMatch(/^rc=[1-9]\d*\nppid=1\n[1-9]\n$/);
    expect(r.stdout).not.toContain('FORGED');
    expect(r.stderr).toContain('/proc/1/fd/1');
  });

  it('cannot write to a descriptor of Airlock\'s process through /proc', async () => {
    const target = join(base, 'parent-fd-bwrap.txt');
    const fd = openSync(target, 'w');
    try {
      const r = await run('bwrap', ['sh', '-c', `for p in /proc/[0-9]*; do printf ESCAPED > $p/fd/${fd}; done 2>/dev/null; echo done`]);
      expect(r.stdout).toBe('done\n');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(target, 'utf8')).toBe('');
  });

  it('cannot read the vault, however it is named', async () => {
    await storeMarker();
    const r = await run('bwrap', ['sh', '-c', `ls -A "${vault.root}" | wc -l; cat "${vault.root}"/raw/sha256/*/* ; echo rc=$?; grep -rl RAW-VAULT-MARKER-7c1 "${base}" 2>/dev/null | wc -l`]);
    expect(r.stdout).toMatch(/^0\nrc=1\n0\n$/);
  });

  it('has no controlling terminal and no terminal device at all', async () => {
    const r = await run('bwrap', ['sh', '-c', '(exec 3>/dev/tty); echo rc=$?; ls /dev/pts /dev/ptmx 2>/dev/null | wc -l; ls /dev']);
    // No ctty, no /dev/tty, and no ptmx or devpts to make a terminal from (a pty answering a prompt).
    expect(r.stdout).toBe('rc=2\n0\nfd\nfull\nnull\nrandom\nshm\nstderr\nstdin\nstdout\nurandom\nzero\n');
    expect(r.stderr).toContain('/dev/tty');
  });

  it('refuses a working directory inside the vault', async () => {
    await expect(run('bwrap', ['true'], join(vault.root, 'records'))).rejects.toThrow(/inside Airlock's vault/);
  });

  it('reports a missing command as not found before bwrap runs', async () => {
    await expect(run('bwrap', ['no-such-command-8d2'])).rejects.toMatchObject({ name: 'SpawnError', code: 'ENOENT' });
  });

  it('still runs ordinary commands: sh, git, node, npm, cc, python', async () => {
    const r = await run('bwrap', [
      'sh',
      '-c',
      'set -e; git init -q repo && cd repo && git status --short | wc -l; node -e "console.log(6*7)"; npm --version >/dev/null && echo npm-ok; ' +
        'printf "int main(void){return 3;}" > m.c; if command -v cc >/dev/null; then cc -o m m.c; ./m || echo cc=$?; else echo cc=3; fi; ' +
        'python3 -c "print(2**10)"',
    ]);
    expect(r.stdout).toBe('0\n42\nnpm-ok\ncc=3\n1024\n');
    expect(r.exit).toBe(0);
    expect(existsSync(join(work, 'repo', '.git'))).toBe(true);
  });

  it('writes only to the working directory and a private /tmp', async () => {
    writeFileSync(join(base, 'outside.txt'), 'keep');
    // base lies in the host's /tmp, which the sandbox replaces: the write lands in its own /tmp.
    const r = await run('bwrap', ['sh', '-c', `echo x > "${base}/outside.txt"; echo t > /tmp/t && echo tmp-ok; echo x > /etc/airlock-test; echo etc=$?`]);
    expect(r.stdout).toMatch(/^tmp-ok\netc=[1-9]\d*\n$/);
    expect(readFileSync(join(base, 'outside.txt'), 'utf8')).toBe('keep');
    expect(existsSync('/etc/airlock-test')).toBe(false);
  });
});

describe.skipIf(skip !== null)(`process lifetime under bwrap${skip ? ` (skipped: ${skip})` : ''}`, () => {
  /** Host processes whose command line holds `marker`. */
  function running(marker: string): number {
    let n = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(marker)) n++;
      } catch {
        // gone
      }
    }
    return n;
  }

  it('ends what the command left running when the command exits', async () => {
    const marker = `${32_000 + Math.floor(Math.random() * 900)}.5`;
    const r = await run('bwrap', ['sh', '-c', `sleep ${marker} >/dev/null 2>&1 & sleep 30 & echo started`]);
    expect(r.stdout).toBe('started\n');
    expect(running(marker)).toBe(0);
  });

  it('reports a signal death as exit status 128+N', async () => {
    const r = await run('bwrap', ['sh', '-c', 'kill -TERM $$']);
    expect(r.exit).toBe(143);
  });

  it('stops the whole sandbox at max_bytes, including a child that ignores SIGTERM', async () => {
    const marker = `${33_000 + Math.floor(Math.random() * 900)}.5`;
    const sandbox = await planSandbox('bwrap', { protect: [vault.root], profile: 'strict' });
    const { env, summary } = childEnvironment({ PATH: process.env.PATH }, []);
    const script = `sh -c 'trap "" TERM; exec sleep ${marker}' & trap "" TERM; yes`;
    const { envelope } = await captureToVault({ vault, argv: ['sh', '-c', script], cwd: work, env, envSummary: summary, maxBytes: 64 * 1024, maxText: 1 << 16, cr: 'newline', limits: {}, timeoutMs: null, sandbox });
    expect(envelope.termination?.reason).toBe('max-bytes');
    expect(envelope.truncated).toBe(true);
    expect(running(marker)).toBe(0);
  });
});
