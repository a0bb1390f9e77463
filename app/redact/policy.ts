import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_POLICY, MARKER_FORMAT, MAX_ALLOWLIST_BYTES, parseAllowlist, RULES, RULESET, type RedactionPolicy } from '../../shared/redact';

/** The per-vault allowlist file (docs/secrets.md has its syntax). */
export const ALLOWLIST_FILE = 'redact-allowlist';

/** `on`: secrets are replaced by markers; `off`: found and counted only (never for agents). */
export type RedactMode = 'on' | 'off';

/** Which policy ran, as the envelope and the record state it. */
export interface RedactionPolicyInfo {
  readonly mode: RedactMode;
  readonly ruleset: string;
  readonly version: number;
  /** Rule ids that ran (the rule set less the allowlist's `disable` lines). */
  readonly rules: readonly string[];
  /** How a redaction looks in the text; the opening bracket never comes from command output. */
  readonly marker: string;
  /** The vault's allowlist: sha256 of its bytes and its directive count, or null when there is none. */
  readonly allowlist: { readonly file: string; readonly sha256: string; readonly entries: number } | null;
}

/** A loaded policy: what the Redactor needs and what the envelope says about it. */
export interface RedactionSetup {
  readonly policy: RedactionPolicy;
  readonly info: RedactionPolicyInfo;
  /** The allowlist file's text (null without one): a thread of its own parses it again (the viewer's index build). */
  readonly source: string | null;
}

/** The allowlist cannot be used: the capture does not run (deny by default). */
export class AllowlistFileError extends Error {
  override readonly name = 'AllowlistFileError';
}

/**
 * Loads the redaction policy of the vault at `root`: the built-in rule set, less what
 * `<root>/redact-allowlist` accepts. A missing file is the default policy. A file that is a link,
 * not a regular file, writable by group or others (anyone who can write it decides what agents
 * see), larger than 64 KiB or not valid is refused with a one-line error.
 */
export async function loadRedaction(root: string, mode: RedactMode = 'on'): Promise<RedactionSetup> {
  const path = join(root, ALLOWLIST_FILE);
  let bytes: Buffer | null = null;
  let fh;
  try {
    fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ENOENT') throw new AllowlistFileError(`${path}: cannot be read (${code === 'ELOOP' ? 'a symbolic link' : code ?? String(err)})`);
  }
  if (fh) {
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new AllowlistFileError(`${path}: not a regular file`);
      if ((st.mode & 0o022) !== 0) throw new AllowlistFileError(`${path}: writable by group or others (mode ${(st.mode & 0o777).toString(8)}); chmod go-w it`);
      if (st.size > MAX_ALLOWLIST_BYTES) throw new AllowlistFileError(`${path}: larger than ${MAX_ALLOWLIST_BYTES} bytes`);
      bytes = await fh.readFile();
    } finally {
      await fh.close();
    }
  }
  let policy = DEFAULT_POLICY;
  if (bytes !== null) {
    try {
      policy = parseAllowlist(bytes.toString('utf8'));
    } catch (err) {
      throw new AllowlistFileError(`${path}: ${(err as Error).message}`);
    }
  }
  return {
    policy,
    source: bytes === null ? null : bytes.toString('utf8'),
    info: {
      mode,
      ruleset: RULESET.name,
      version: RULESET.version,
      rules: RULES.map((r) => r.id).filter((id) => !policy.disabled.has(id)),
      marker: MARKER_FORMAT,
      allowlist: bytes === null ? null : { file: ALLOWLIST_FILE, sha256: createHash('sha256').update(bytes).digest('hex'), entries: policy.entries },
    },
  };
}

/** The default policy without a vault (library callers, `airlock sanitize --redact`). */
export function defaultRedaction(mode: RedactMode = 'on'): RedactionSetup {
  return {
    policy: DEFAULT_POLICY,
    source: null,
    info: { mode, ruleset: RULESET.name, version: RULESET.version, rules: RULES.map((r) => r.id), marker: MARKER_FORMAT, allowlist: null },
  };
}
