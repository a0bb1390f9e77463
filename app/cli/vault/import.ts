// `airlock vault import FILE`: a transcript from elsewhere into the vault, through the one import
// service the desktop app's "Open file…" and `airlock open FILE` use (app/services/import).
import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AuditLog } from '../../audit';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import { formatRef, Vault } from '../../vault';
import { resolveVaultDir } from '../../vault/location';
import { importFile, type ImportResult } from '../../services/import/importer';
import { removalSummary } from '../../services/vault-view/view';
import { DANGER_LABELS, type DangerCategory } from '../../../shared/parser/danger';
import type { ArtifactSourceKind } from '../../../shared/bridge/types';
import type { RemovalReport } from '../../../shared/sanitize/report';
import { CliError, UsageError, writeOwnLines, type CliIo } from '../command';
import { parseFlags, type FlagSpec } from '../flags';
import { assertVaultWritable, toCliError } from '../vault-open';

const SPEC: FlagSpec = { '--vault': 'value', '--format': 'value', '--timing': 'value', '--json': 'flag' };

const FORMATS: Readonly<Record<string, ArtifactSourceKind | undefined>> = { auto: undefined, plain: 'file', script: 'script', asciicast: 'asciicast' };
const FORMAT_NAMES: Readonly<Record<ArtifactSourceKind, string>> = { file: 'plain', script: 'script', asciicast: 'asciicast', capture: 'capture' };

/** One stored artifact of an import, as the CLI and `airlock open` report it. */
export interface ImportedArtifact {
  readonly stream: string;
  readonly ref: string;
  readonly sha256: string;
  readonly size: number;
  readonly removedSpans: number;
  readonly danger: Partial<Record<DangerCategory, number>>;
}

export interface Imported {
  readonly vault: string;
  readonly result: ImportResult;
  readonly artifacts: readonly ImportedArtifact[];
}

/**
 * Checks FILE (one clear line for a missing file, a directory, a link, a device), opens or creates
 * the vault at `vaultDir`, and imports FILE through the import service (audited
 * `artifact.imported`). Nothing is stored when the file cannot be read as `format`.
 */
export async function importIntoVault(vaultDir: string, file: string, options: { format?: ArtifactSourceKind; timingPath?: string } = {}): Promise<Imported> {
  const shown = terminalSafeLine(file);
  let st;
  try {
    st = await lstat(file);
  } catch {
    throw new CliError(`no such file: ${shown}`);
  }
  if (st.isSymbolicLink()) throw new CliError(`${shown} is a symbolic link: give the file it points to`);
  if (!st.isFile()) throw new CliError(`not a regular file: ${shown}`);
  if (options.timingPath !== undefined) {
    const t = await lstat(options.timingPath).catch(() => null);
    if (!t?.isFile()) throw new CliError(`no timing file at ${terminalSafeLine(options.timingPath)}`);
  }
  let vault: Vault;
  try {
    vault = await Vault.open(vaultDir, { create: true });
    await assertVaultWritable(vault);
  } catch (err) {
    throw toCliError(err);
  }
  let result: ImportResult;
  try {
    result = await importFile(vault, AuditLog.forVault(vault.root), file, { kind: options.format, timingPath: options.timingPath });
  } catch (err) {
    const e = toCliError(err);
    if (e instanceof CliError) throw e;
    const as = options.format ? ` as ${FORMAT_NAMES[options.format]}` : '';
    throw new CliError(`cannot import ${shown}${as}: ${terminalSafeLine(err instanceof Error ? err.message : String(err))}`);
  }
  const reports = (result.record.reports ?? {}) as Record<string, RemovalReport | undefined>;
  const artifacts = Object.entries(result.record.raw).map(([stream, raw]) => {
    const summary = removalSummary(reports[stream] ?? null);
    return { stream, ref: formatRef(raw.sha256), sha256: raw.sha256, size: raw.size, removedSpans: summary.removedSpans, danger: summary.danger ?? {} };
  });
  return { vault: vault.root, result, artifacts };
}

/** "clipboard ×1, hyperlinks ×20, colour ×800" (most dangerous first). */
export function dangerText(danger: Partial<Record<DangerCategory, number>>): string {
  return (Object.entries(danger) as Array<[DangerCategory, number]>).map(([c, n]) => `${DANGER_LABELS[c]} ×${n}`).join(', ');
}

/** `airlock vault import FILE …`. */
export async function vaultImport(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, SPEC);
  if (parsed.positionals.length !== 1) throw new UsageError(parsed.positionals.length === 0 ? 'import needs a FILE' : 'import takes one FILE');
  const formatName = parsed.values['--format'] ?? 'auto';
  if (!Object.hasOwn(FORMATS, formatName)) throw new UsageError(`--format must be auto, plain, script or asciicast (not '${terminalSafeLine(formatName.slice(0, 40))}')`);
  const format = FORMATS[formatName];
  const timing = parsed.values['--timing'];
  if (timing !== undefined && format !== undefined && format !== 'script') throw new UsageError('--timing goes with a script(1) typescript (--format script or auto)');
  const file = resolve(io.cwd, parsed.positionals[0]!);
  const imported = await importIntoVault(resolveVaultDir(parsed.values['--vault'], io.env, io.cwd), file, { format, timingPath: timing === undefined ? undefined : resolve(io.cwd, timing) });
  const { record, source } = imported.result;
  if (parsed.flags.has('--json')) {
    io.stdout.write(`${terminalSafeJson({
      record: record.id,
      vault: imported.vault,
      format: FORMAT_NAMES[source],
      rebuilt: source === 'asciicast',
      file: record.file,
      artifacts: imported.artifacts.map((a) => ({ stream: a.stream, ref: a.ref, sha256: a.sha256, size: a.size, removed_spans: a.removedSpans, danger: a.danger })),
    }, 2)}\n`);
    return 0;
  }
  const lines = [`imported ${terminalSafeLine(String(record.title ?? file))} (${FORMAT_NAMES[source]}${source === 'asciicast' ? ', rebuilt from decoded text: not byte-exact' : ''}) as record ${record.id}`];
  for (const a of imported.artifacts) {
    const removed = a.removedSpans === 0 ? 'nothing removed' : `${a.removedSpans} spans removed: ${dangerText(a.danger)}`;
    lines.push(`  ${a.stream}  ${a.ref}  ${a.size} B  ${removed}`);
  }
  lines.push(`view it: airlock open ${imported.artifacts[0]?.ref ?? record.id} --vault ${terminalSafeLine(imported.vault)}`);
  writeOwnLines(io.stdout, lines, '    + ');
  return 0;
}
