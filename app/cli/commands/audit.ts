import { AuditLog, canonicalJson, type AuditEntry } from '../../node/audit';
import { terminalSafeJson, terminalSafeLine } from '../../node/terminal-safe';
import { parseFlags } from '../flags';
import { openVaultForCli, toCliError } from '../vault-open';
import { UsageError, type CliIo, type Command } from '../command';

const USAGE = `Usage:
  airlock audit verify [--vault DIR]
  airlock audit list   [--vault DIR] [--json]

Check or print the vault's hash-chained audit log (who requested, granted, opened or pruned
raw bytes). verify exits 0 when the chain is intact and 1 naming the first bad line.

Options:
  --vault DIR   vault directory (default: $AIRLOCK_VAULT, else $XDG_DATA_HOME/airlock/vault,
                else ~/.local/share/airlock/vault)
  --json        machine-readable output (list)`;

/** `airlock audit`: verify or list the audit log. */
export const auditCommand: Command = {
  name: 'audit',
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    try {
      switch (sub) {
        case 'verify':
          return await verify(rest, io);
        case 'list':
          return await list(rest, io);
        case undefined:
          throw new UsageError('missing subcommand (verify or list)');
        default:
          throw new UsageError(`unknown subcommand '${terminalSafeLine(sub.slice(0, 40))}'`);
      }
    } catch (err) {
      throw toCliError(err);
    }
  },
};

async function openLog(args: readonly string[], io: CliIo, spec: Record<string, 'value' | 'flag'>): Promise<{ log: AuditLog; json: boolean; records: number }> {
  const { values, flags, positionals } = parseFlags(args, spec);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${terminalSafeLine(positionals[0]!.slice(0, 40))}'`);
  const vault = await openVaultForCli(values['--vault'], io);
  const { records } = await vault.listRecords();
  return { log: AuditLog.forVault(vault.root), json: flags.has('--json'), records: records.length };
}

async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const { log, records } = await openLog(args, io, { '--vault': 'value' });
  const result = await log.verify();
  if (!result.ok) {
    io.stdout.write(`audit log BROKEN at line ${result.line}: ${terminalSafeLine(result.reason)}\n`);
    return 1;
  }
  if (result.entries === 0 && records > 0) {
    // Deleting the whole log leaves no broken chain behind; captured records without any
    // audit entry are the evidence.
    io.stdout.write(`audit log BROKEN at line 1: the log is empty or missing but the vault holds ${records} record(s)\n`);
    return 1;
  }
  io.stdout.write(`audit log OK: ${result.entries} entries\nhead: ${result.head}\n`);
  return 0;
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { log, json } = await openLog(args, io, { '--vault': 'value', '--json': 'flag' });
  const lines = await log.list();
  if (json) {
    io.stdout.write(`${terminalSafeJson(lines.map((l) => ('entry' in l ? l.entry : { line: l.line, error: l.error })), 2)}\n`);
  } else {
    for (const l of lines) {
      io.stdout.write('entry' in l ? `${formatEntry(l.entry)}\n` : `line ${l.line}: unreadable (${terminalSafeLine(l.error)})\n`);
    }
  }
  return lines.some((l) => 'error' in l) ? 1 : 0;
}

const FIXED = new Set(['seq', 'ts', 'actor', 'action', 'prev', 'hash']);

/** `seq ts user@host action key=value ...`, every part terminal-safe (the file may have been edited). */
function formatEntry(e: AuditEntry): string {
  const details = Object.entries(e)
    .filter(([k]) => !FIXED.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : safeCanonical(v)}`);
  const parts = [String(e.seq).padStart(5), String(e.ts), `${String(e.actor.user)}@${String(e.actor.host)}`, String(e.action), ...details];
  return terminalSafeLine(parts.join('  '));
}

function safeCanonical(v: unknown): string {
  try {
    return canonicalJson(v);
  } catch {
    return JSON.stringify(v) ?? String(v);
  }
}
