/**
 * Asked of every captured command unless the caller overrides it with `--env`: plain output.
 * Pipes already make most programs drop colour; these cover those that check variables instead
 * (NO_COLOR, CLICOLOR, FORCE_COLOR=0 for chalk/supports-color), or that would start a pager.
 */
export const PLAIN_OUTPUT_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  CLICOLOR: '0',
  FORCE_COLOR: '0',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
});

/** Variables removed unless the caller sets them: each one asks a program for colour or a terminal. */
export const COLOUR_FORCING_ENV: readonly string[] = ['CLICOLOR_FORCE', 'COLORTERM'];

/** One `--env` edit: `K=V` sets K, a bare `K` removes it. */
export type EnvEdit = { readonly key: string; readonly value: string } | { readonly key: string; readonly unset: true };

/** Which variables the child's environment differs in, by name only (values may be secrets). */
export interface EnvSummary {
  /** Set by Airlock or the caller, sorted. */
  readonly set: string[];
  /** Removed by Airlock or the caller, sorted. */
  readonly unset: string[];
}

/**
 * The child's environment: the caller's environment, plus {@link PLAIN_OUTPUT_ENV}, minus
 * {@link COLOUR_FORCING_ENV}, then the caller's `--env` edits in order (last one wins).
 */
export function childEnvironment(base: NodeJS.ProcessEnv, edits: readonly EnvEdit[]): { env: NodeJS.ProcessEnv; summary: EnvSummary } {
  const env: NodeJS.ProcessEnv = { ...base, ...PLAIN_OUTPUT_ENV };
  const set = new Set(Object.keys(PLAIN_OUTPUT_ENV));
  const unset = new Set<string>();
  for (const key of COLOUR_FORCING_ENV) {
    if (key in env) {
      delete env[key];
      unset.add(key);
    }
  }
  for (const edit of edits) {
    if ('unset' in edit) {
      delete env[edit.key];
      set.delete(edit.key);
      unset.add(edit.key);
    } else {
      env[edit.key] = edit.value;
      set.add(edit.key);
      unset.delete(edit.key);
    }
  }
  return { env, summary: { set: [...set].sort(), unset: [...unset].sort() } };
}
