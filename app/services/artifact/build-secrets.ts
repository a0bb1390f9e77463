// The index's secrets column (format.ts `secrets.bin`): the redaction stage of the capture
// (shared/redact, the vault's allowlist) run over the sanitized text the build emits, so every query
// that serves text (lines, search, screen) knows where a suspected secret is without keeping its
// value anywhere but the text column. A run feeds its text to a {@link SecretSink} as it emits it;
// one run's records are the column. A segmented build's later runs started fresh inside the file:
// their Redactors saw other text before their hand-over, so the column is spliced where both sides
// are known to agree (see {@link spliceSecrets}), as the build splices its other columns.
import { DEFAULT_POLICY, parseAllowlist, Redactor, RULES, RULESET, type RedactionPolicy } from '../../../shared/redact';
import { ColumnWriter } from './columns';
import { PageField, type PageTable } from './pages';
import { replayPages, replayText, type ReplaySource } from './replay';

/** Bytes of one secret record: textStart f64 | textEnd f64 | rule f64 (an index into SECRET_RULES). */
export const SECRET_RECORD = 24;
/** The column's file in the index directory. */
export const SECRETS_FILE = 'secrets.bin';
/** Rule ids as the records number them (the rule set's table order). */
export const SECRET_RULES: readonly string[] = RULES.map((r) => r.id);

/** What a build redacts with: the vault's allowlist text (null: none), parsed in the build's thread. */
export interface SecretsSetup {
  readonly allowlist: string | null;
  /**
   * What the column was made with (rule set, version, allowlist digest): part of the index's
   * identity, so an edited allowlist or another rule set rebuilds it.
   */
  readonly key: string;
}

/** The key of a setup: the rule set, its version and the allowlist's digest (or `none`). */
export function secretsKey(allowlistSha256: string | null): string {
  return `${RULESET.name}@${RULESET.version}:${allowlistSha256 ?? 'none'}`;
}

/** The policy of a setup (none given: the built-in rules, as a capture without an allowlist). */
export function secretsPolicy(setup: SecretsSetup | undefined | null): RedactionPolicy {
  return setup?.allowlist ? parseAllowlist(setup.allowlist) : DEFAULT_POLICY;
}

/** Text a probe for an idle point reads after a page start at most (bounds the line-by-line writes). */
const PROBE_BYTES = 64 << 10;
const LF = 0x0a;

/**
 * A run's redaction: its text goes through a Redactor, each redaction becomes a record (offsets in
 * the run's own text, from 0), and at every page start the first point where the Redactor is
 * idle (Redactor.idle: it would go on as a fresh one) is noted, found by writing line by line
 * for at most PROBE_BYTES after the page start (-1 when none was found by then): where a segmented
 * build's runs are spliced.
 */
export class SecretSink {
  /** Records (SECRET_RECORD bytes each), kept in memory until the build writes the column. */
  readonly out = ColumnWriter.memory('keep');
  /** Per page from the run's first: the first idle point at or after its start (run text offset), or -1. */
  readonly idle: number[] = [];
  private readonly redactor: Redactor;
  /** Text fed so far. */
  private pos = 0;
  /** Pages whose idle point is still sought, and where each began. */
  private readonly seeking: { page: number; from: number }[] = [];
  private readonly ids = new Map(SECRET_RULES.map((id, i) => [id, i]));

  constructor(policy: RedactionPolicy) {
    this.redactor = new Redactor({
      policy,
      maxListed: 0,
      onRedaction: (rule, offset, length) => {
        const at = this.out.reserve(SECRET_RECORD) >> 3;
        const f = this.out.f64;
        f[at] = offset;
        f[at + 1] = offset + length;
        f[at + 2] = this.ids.get(rule) ?? -1;
      },
    });
  }

  /** Secrets recorded so far. */
  get count(): number {
    return this.out.bytes / SECRET_RECORD;
  }

  /** A page starts here (after the text fed so far): its idle point is sought from now on. */
  pageStart(): void {
    this.idle.push(-1);
    this.seeking.push({ page: this.idle.length - 1, from: this.pos });
    if (this.redactor.idle) this.found();
  }

  /** The run emitted `text`. */
  text(text: Uint8Array): void {
    let a = 0;
    while (this.seeking.length > 0 && a < text.length) {
      const lf = text.indexOf(LF, a);
      if (lf < 0) break;
      this.write(text.subarray(a, lf + 1));
      a = lf + 1;
      if (this.redactor.idle) this.found();
      else this.giveUp();
    }
    if (a < text.length) this.write(a === 0 ? text : text.subarray(a));
  }

  /** The text ended (the run reached the end of the file). */
  end(): void {
    this.redactor.end();
    this.seeking.length = 0;
  }

  /** The records and idle points as plain data (a later run's outcome crosses threads). */
  outcome(): SecretRunData {
    this.out.close();
    return { records: this.out.kept, idle: Float64Array.from(this.idle) };
  }

  private write(bytes: Uint8Array): void {
    this.redactor.writeTo(bytes, ignore);
    this.pos += bytes.length;
  }

  private found(): void {
    for (const s of this.seeking) this.idle[s.page] = this.pos;
    this.seeking.length = 0;
  }

  private giveUp(): void {
    while (this.seeking.length > 0 && this.pos - this.seeking[0].from > PROBE_BYTES) this.seeking.shift();
  }
}

function ignore(): void {}

/** A run's secrets as plain data: its records (buffers of SECRET_RECORD records) and idle points by page. */
export interface SecretRunData {
  readonly records: readonly Uint8Array[];
  readonly idle: Float64Array;
}

/** One run of a build, in the order the build's text takes them (the merge's chain of hand-overs). */
export interface SecretRun extends SecretRunData {
  /** The run's first page. */
  readonly firstPage: number;
  /** Added to the run's text offsets to make the index's. */
  readonly shift: number;
  /** Index text offset from which the run's text is the index's (its hand-over; 0 for the first). */
  readonly from: number;
}

/** Where spliced records go (a ColumnWriter). */
type SecretWriter = Pick<ColumnWriter, 'reserve' | 'f64'>;

/** Records of a run, one Float64Array per buffer. */
function recordsOf(run: SecretRunData): Float64Array[] {
  return run.records.map((b) => new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8));
}

/**
 * Writes the secrets column of a build from its runs (`runs` in text order; one run: its records
 * as they are). Where a later run took over, the Redactors of both sides saw different text
 * before: the earlier run's records are kept up to its last idle point A before the hand-over,
 * a fresh Redactor goes on from A over the index's text (replayed) until a point where it and the
 * later run are both idle, and the later run's records are kept from there. Idle Redactors go on
 * alike, so the column is what one Redactor over the whole text records. A seam that never meets
 * such a point goes on to the end (linear: each text byte is replayed at most once more).
 * Returns the records written by rule.
 */
export function spliceSecrets(runs: readonly SecretRun[], table: PageTable, src: ReplaySource, policy: RedactionPolicy, out: SecretWriter): Record<string, number> {
  const copy = (run: SecretRun, from: number, to: number): void => {
    for (const f of recordsOf(run)) {
      for (let i = 0; i + 3 <= f.length; i += 3) {
        const start = f[i] + run.shift;
        if (start < from || start >= to) continue;
        write(start, f[i + 1] + run.shift, f[i + 2]);
      }
    }
  };
  const byRule: Record<string, number> = {};
  const write = (start: number, end: number, rule: number): void => {
    const at = out.reserve(SECRET_RECORD) >> 3;
    out.f64[at] = start;
    out.f64[at + 1] = end;
    out.f64[at + 2] = rule;
    const id = SECRET_RULES[rule] ?? 'unknown';
    byRule[id] = (byRule[id] ?? 0) + 1;
  };
  let cur = 0;
  let settled = 0;
  for (;;) {
    const run = runs[cur];
    const next = runs[cur + 1];
    if (!next) {
      copy(run, settled, Infinity);
      return byRule;
    }
    // The last point before the hand-over where this run's Redactor was idle.
    let a = settled;
    for (const x of run.idle) if (x >= 0 && x + run.shift >= a && x + run.shift <= next.from) a = x + run.shift;
    copy(run, settled, a);
    const seam = seamFrom(runs, cur + 1, a, table, src, policy, write);
    if (seam === null) return byRule;
    cur = seam.run;
    settled = seam.at;
  }
}

/**
 * A fresh Redactor from index text offset `a` (a point where the whole text's Redactor is idle) on,
 * its records written to `out`, until a point where it is idle and so is the run that owns the text
 * there (runs from `first` on): that run and point; or null when it went on to the end of the text.
 */
function seamFrom(
  runs: readonly SecretRun[], first: number, a: number, table: PageTable, src: ReplaySource, policy: RedactionPolicy, write: (start: number, end: number, rule: number) => void,
): { run: number; at: number } | null {
  // Where the runs from `first` on were idle, in index text offsets, each in the stretch it owns.
  const points: { at: number; run: number }[] = [];
  for (let j = first; j < runs.length; j++) {
    const r = runs[j];
    const until = runs[j + 1]?.from ?? Infinity;
    for (const x of r.idle) if (x >= 0 && x + r.shift >= Math.max(a, r.from) && x + r.shift < until) points.push({ at: x + r.shift, run: j });
  }
  points.sort((x, y) => x.at - y.at);
  const redactor = new Redactor({
    policy,
    maxListed: 0,
    onRedaction: (rule, offset, length) => write(a + offset, a + offset + length, SECRET_RULES.indexOf(rule)),
  });
  let pos = a;
  let k = 0;
  // A point at `a` itself: both sides are idle there already.
  while (k < points.length && points[k].at <= pos) {
    if (points[k].at === pos) return { run: points[k].run, at: pos };
    k++;
  }
  for (const text of textFrom(table, src, a)) {
    let t = 0;
    while (t < text.length) {
      const stop = k < points.length ? Math.min(text.length, points[k].at - pos + t) : text.length;
      redactor.writeTo(stop - t === text.length ? text : text.subarray(t, stop), ignore);
      pos += stop - t;
      t = stop;
      while (k < points.length && points[k].at <= pos) {
        if (points[k].at === pos && redactor.idle) return { run: points[k].run, at: pos };
        k++;
      }
    }
  }
  redactor.end();
  return null;
}

/** Pages replayed at a time by a seam. */
const SEAM_PAGES = 8;

/** The index's text from text offset `a` to its end, replayed a few pages at a time. */
function* textFrom(table: PageTable, src: ReplaySource, a: number): Generator<Uint8Array> {
  let p = table.pageAt(PageField.Text, a);
  // pageAt gives the last page starting at or before `a`; an empty page before it holds none of it.
  while (p > 0 && table.get(p, PageField.Text) === a && table.get(p - 1, PageField.Text) === a) p--;
  while (p < table.pages) {
    const last = Math.min(table.pages - 1, p + SEAM_PAGES - 1);
    const start = table.replayStart(p);
    const pages = (replayText(src, start, last) ?? replayPages(src, start, last, ['text.bin']).map((x) => x.text)).slice(p - start);
    let at = table.get(p, PageField.Text);
    for (const text of pages) {
      const end = at + text.length;
      if (end > a) yield at >= a ? text : text.subarray(a - at);
      at = end;
    }
    p = last + 1;
  }
}
