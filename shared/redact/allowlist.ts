import { RULES, ruleById } from './rules';

/**
 * The false-positive policy of one vault: which rules are off, which detected values and which
 * lines are accepted, and entropy thresholds. It holds patterns and rule ids, never secret values:
 * an allowlist is a file people copy, commit and paste into tickets.
 *
 * Syntax (one directive per line; `#` starts a comment line; blank lines are ignored):
 *
 *     disable RULE                  the rule never runs
 *     allow RULE|* /REGEX/[i]       a detected value the regex matches as a whole is left as it is
 *     allow-line RULE|* /REGEX/[i]  a detection on a line the regex finds something in is left as it is
 *     min-entropy RULE BITS         the value must reach BITS bits of Shannon entropy per character
 *
 * A value pattern that is a plain literal of 8 or more characters is refused: that is a stored
 * secret, not a pattern.
 */
export interface RedactionPolicy {
  readonly disabled: ReadonlySet<string>;
  readonly allowValue: readonly PatternEntry[];
  readonly allowLine: readonly PatternEntry[];
  readonly minEntropy: ReadonlyMap<string, number>;
  /** Directives in the file (0 for the default policy). */
  readonly entries: number;
}

export interface PatternEntry {
  /** A rule id, or `*` for every rule. */
  readonly rule: string;
  readonly re: RegExp;
}

export const DEFAULT_POLICY: RedactionPolicy = Object.freeze({
  disabled: new Set<string>(),
  allowValue: [],
  allowLine: [],
  minEntropy: new Map<string, number>(),
  entries: 0,
});

/** A line of an allowlist that says nothing valid; `line` is 1-based. */
export class AllowlistError extends Error {
  override readonly name = 'AllowlistError';
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`allowlist line ${line}: ${reason}`);
  }
}

/** Longest allowlist accepted: it is configuration, not data. */
export const MAX_ALLOWLIST_BYTES = 64 * 1024;

/** Parses an allowlist file's text (see {@link RedactionPolicy} for the syntax). Throws AllowlistError. */
export function parseAllowlist(text: string): RedactionPolicy {
  const disabled = new Set<string>();
  const allowValue: PatternEntry[] = [];
  const allowLine: PatternEntry[] = [];
  const minEntropy = new Map<string, number>();
  let entries = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const line = lines[i].replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(line);
    if (!m) throw new AllowlistError(n, `expected a directive (disable, allow, allow-line, min-entropy) and its arguments, not '${shown(line)}'`);
    const [, directive, rule, rest] = m;
    switch (directive) {
      case 'disable':
        if (rest !== undefined) throw new AllowlistError(n, 'disable takes one rule id');
        disabled.add(knownRule(n, rule, false));
        break;
      case 'allow':
        allowValue.push({ rule: knownRule(n, rule, true), re: pattern(n, rest, true) });
        break;
      case 'allow-line':
        allowLine.push({ rule: knownRule(n, rule, true), re: pattern(n, rest, false) });
        break;
      case 'min-entropy': {
        const bits = Number(rest);
        if (rest === undefined || !/^\d+(?:\.\d+)?$/.test(rest) || bits > 8) throw new AllowlistError(n, `min-entropy needs bits per character between 0 and 8, not '${shown(rest ?? '')}'`);
        minEntropy.set(knownRule(n, rule, false), bits);
        break;
      }
      default:
        throw new AllowlistError(n, `unknown directive '${shown(directive)}' (disable, allow, allow-line, min-entropy)`);
    }
    entries++;
  }
  return { disabled, allowValue, allowLine, minEntropy, entries };
}

function knownRule(n: number, id: string, star: boolean): string {
  if (star && id === '*') return id;
  if (!ruleById(id)) throw new AllowlistError(n, `unknown rule '${shown(id)}' (rules: ${RULES.map((r) => r.id).join(', ')})`);
  return id;
}

const META = /[\\.*+?()[\]{}|^$]/;

function pattern(n: number, arg: string | undefined, value: boolean): RegExp {
  const m = arg === undefined ? null : /^\/(.+)\/(i?)$/.exec(arg);
  if (!m) throw new AllowlistError(n, `expected a pattern written /REGEX/ or /REGEX/i, not '${shown(arg ?? '')}'`);
  const [, source, flags] = m;
  if (value && !META.test(source) && source.length >= 8) {
    throw new AllowlistError(n, 'a plain value is not stored in an allowlist (it would be a copy of the secret); write a pattern that matches it, or disable the rule');
  }
  try {
    return new RegExp(value ? `^(?:${source})$` : source, flags);
  } catch (err) {
    throw new AllowlistError(n, `bad regular expression: ${(err as Error).message}`);
  }
}

/** At most 60 characters of caller text for a message, control characters escaped. */
function shown(s: string): string {
  const cut = s.length > 60 ? `${s.slice(0, 59)}…` : s;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
