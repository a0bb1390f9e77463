import { AuditLog, canonicalJson, type AuditEntry } from '../../audit';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import type { Vault } from '../../vault';
import { verifyAgainstVault } from '../audit/verify-vault';
import { noPositionals, parseFlags, type FlagSpec, type ParsedFlags } from '../flags';
import { openVaultForCli } from '../vault-open';
import { subcommands } from '../subcommands';
import { UsageError, writeOwnLines, type CliIo, type Command } from '../command';
import { writeAll } from '../write';

const USAGE = `Usage:
  airlock audit verify [--vault DIR] [--head HASH] [--json]
  airlock audit list   [--vault DIR] [--json]
  airlock audit repair [--vault DIR]

Check, print or repair the vault's hash-chained audit log (who captured, requested, granted,
opened or pruned raw bytes).

verify checks the chain line by line, then holds every record, prune marker and review request
of the vault against the entry that made or last changed it: each entry commits to the sha256
of that content, so an edited record (its text, exit code, sandbox, digests) or extract, a
planted one, and a log whose tail was cut off all fail. It exits 0 when all holds and 1 naming
the problems. Its 'head' line is the hash of the last entry: keep it outside the vault (ticket,
another host) and pass it back with --head HASH, which fails unless that entry is still in the
log — so a log rewritten before it, commitments recomputed to cover an edit, fails too. Captures
that started but have no outcome (a crash, a store that failed) are listed as notes.

repair handles a damaged last line (a torn append after a crash or a full disk): the torn bytes
are moved to audit.torn-<time>-<random>.bin beside the log, the log is cut back to its intact
entries and an 'audit.repaired' entry records what was removed. A log broken before its last line
is refused (nothing is changed).

Options:
  --vault DIR   vault directory (default: $AIRLOCK_VAULT, else $XDG_DATA_HOME/airlock/vault,
                else ~/.local/share/airlock/vault)
  --head HASH   (verify) a head hash printed earlier: it must still be an entry of the log
  --json        machine-readable output (verify, list)`;

const VERIFY_SPEC: FlagSpec = { '--vault': 'value', '--head': 'value', '--json': 'flag' };
const LIST_SPEC: FlagSpec = { '--vault': 'value', '--json': 'flag' };
const REPAIR_SPEC: FlagSpec = { '--vault': 'value' };

/** `airlock audit`: verify, list or repair the audit log. */
export const auditCommand: Command = subcommands({ name: 'audit', usage: USAGE, subcommands: { verify, list, repair } });

async function openLog(args: readonly string[], io: CliIo, spec: FlagSpec): Promise<{ log: AuditLog; vault: Vault; parsed: ParsedFlags }> {
  const parsed = parseFlags(args, spec);
  noPositionals(parsed);
  const vault = await openVaultForCli(parsed.values['--vault'], io);
  return { log: AuditLog.forVault(vault.root), vault, parsed };
}

async function verify(args: readonly string[], io: CliIo): Promise<number> {
  const { log, vault, parsed } = await openLog(args, io, VERIFY_SPEC);
  const anchor = parsed.values['--head'];
  if (anchor !== undefined && !/^[0-9a-f]{64}$/.test(anchor)) throw new UsageError('--head needs the 64 lowercase hex digits of a head hash that verify printed');
  const report = await verifyAgainstVault(log, vault, anchor);
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson(report, 2)}\n`);
    return report.ok ? 0 : 1;
  }
  const lines: string[] = [];
  if (report.broken) lines.push(`audit log BROKEN at line ${report.broken.line}: ${terminalSafeLine(report.broken.reason)}`);
  for (const p of report.problems) lines.push(`audit log BROKEN: ${terminalSafeLine(p)}`);
  for (const u of report.unfinished) lines.push(`note: capture ${u.record} started at entry ${u.seq} and has no stored or failed entry`);
  if (report.ok) lines.push(`audit log OK: ${report.entries} entries; ${report.records} records, their prune markers and the review requests each as its entry committed to`, `head: ${report.head}`);
  if (report.anchor?.found) lines.push(`anchor ${report.anchor.hash} is entry ${report.anchor.seq}`);
  writeOwnLines(io.stdout, lines, '  + ');
  return report.ok ? 0 : 1;
}

async function repair(args: readonly string[], io: CliIo): Promise<number> {
  const { log } = await openLog(args, io, REPAIR_SPEC);
  const result = await log.repairTail();
  if (!result.repaired) {
    writeOwnLines(io.stdout, `audit log OK: ${result.entries} entries; nothing to repair`, '  + ');
    return 0;
  }
  const repaired = `audit log repaired: line ${result.line} (${result.removedBytes} bytes) moved to ${terminalSafeLine(result.aside)}; entry ${result.entry.seq} 'audit.repaired' records it`;
  writeOwnLines(io.stdout, [repaired, `head: ${result.entry.hash}`], '  + ');
  return 0;
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { log, parsed } = await openLog(args, io, LIST_SPEC);
  const json = parsed.flags.has('--json');
  let bad = false;
  let first = true;
  // One line at a time: the log grows forever, and listing it must not hold it.
  for await (const l of log.lines()) {
    bad ||= 'error' in l;
    if (json) {
      const value = 'entry' in l ? l.entry : { line: l.line, error: l.error };
      await writeAll(io.stdout, `${first ? '[\n' : ',\n'}${terminalSafeJson(value, 2).replace(/^/gm, '  ')}`);
    } else {
      // Entries come from a file anyone with vault access could edit: a wrapped one must not pass for the next.
      writeOwnLines(io.stdout, 'entry' in l ? formatEntry(l.entry) : `line ${l.line}: unreadable (${terminalSafeLine(l.error)})`, '      + ');
    }
    first = false;
  }
  if (json) await writeAll(io.stdout, first ? '[]\n' : '\n]\n');
  return bad ? 1 : 0;
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
