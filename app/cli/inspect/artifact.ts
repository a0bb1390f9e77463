import { CliError, type CliIo } from '../command';

/** What part of an artifact is being looked at, for the audit entry. */
export interface ViewedRange {
  readonly offset: number;
  readonly length: number;
  /** A hex dump (bytes shown) or only the summary (counts and digest). */
  readonly dump: boolean;
}

/** Who opens an artifact: the command, and the view it shows (empty: inspect's hex dump or summary). */
export interface OpenedBy {
  readonly via: string;
  readonly view: string;
}

/** What `inspect` (or `screen`) reads: the path to open, and how to name it to the user. */
export interface Opened {
  readonly path: string;
  readonly shown: string;
}

/**
 * Resolves what `inspect` reads: a file or `-` as given, or a vault artifact named by its
 * `restricted:sha256:` reference (see restricted-artifact.ts: an audited access). The vault and
 * audit code is loaded only for a reference, so a dump of a file does not pay for compiling it.
 */
export async function openArtifact(arg: string, range: ViewedRange, vaultFlag: string | undefined, io: CliIo, by: OpenedBy = { via: 'airlock inspect', view: '' }): Promise<Opened> {
  if (!arg.startsWith('restricted:')) return { path: arg, shown: arg === '-' ? '(stdin)' : arg };
  try {
    const { openRestricted } = await import('./restricted-artifact');
    return await openRestricted(arg, range, vaultFlag, io, by);
  } catch (err) {
    // It fails only with a CliError; built, it is a file of its own (dist/inspect-restricted.mjs)
    // whose CliError is another class than this one: its message and exit code carry over.
    if (err instanceof CliError) throw err;
    const code = (err as { exitCode?: unknown } | null)?.exitCode;
    throw new CliError(err instanceof Error ? err.message : String(err), typeof code === 'number' ? code : 1);
  }
}
