import { constants as fsc } from 'node:fs';
import { open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditDetails, AuditEntry } from '../../audit';
import { contentDigest, withFileLock } from '../../audit';
import { ensurePrivateDir, isErrno, PRIVATE_FILE_MODE, writeFileAtomic } from '../../files/fs-atomic';
import { currentActor, type Actor } from '../../audit/identity';
import { loadRedaction } from '../../redact/policy';
import type { Vault } from '../../vault';
import { auditText } from '../bridge/errors';
import { RequestError } from './errors';
import { computeExtract, extractDigest } from './extract';
import { assertRequestId, isRequestId, newRequestId } from './id';
import { DEFAULT_REQUEST_TTL_MS, MAX_PENDING, MAX_REASON } from './limits';
import { storedRequestSchema, type RequestActor, type StoredRequest } from './record';
import { checkNewRequest, type NewRequest } from './validate';

/** Audit actions of the review queue. */
export type RequestAuditAction = 'request.created' | 'request.approved' | 'request.denied' | 'request.expired' | 'request.pruned';

/** The part of AuditLog the store uses (tests pass fakes that fail on purpose). */
export interface RequestAudit {
  append(action: RequestAuditAction, details: AuditDetails, beforeWrite?: (entry: AuditEntry) => Promise<void>): Promise<AuditEntry>;
  entryAt(seq: number): Promise<AuditEntry | null>;
}

/** Options of a {@link RequestStore}. */
export interface RequestStoreOptions {
  /** Lifetime of a pending request; default 24 hours. */
  readonly ttlMs?: number;
  readonly now?: () => Date;
  /** Who acts (default: the OS user and host, as the audit log names them). */
  readonly actor?: Actor;
  /** The atomic writer (tests inject a failing one: a full disk). */
  readonly writeFile?: typeof writeFileAtomic;
}

/** How a decision is taken: through which surface, with what note. */
export interface Decision {
  readonly via: RequestActor['via'];
  readonly note?: string | null;
}

/** Files in `requests/` that could not be read, and why (list reports them, never throws). */
export interface RequestReadError {
  readonly file: string;
  readonly error: string;
}

/**
 * The review queue: one JSON file per raw-access request in `<vault>/requests/` (0700; files
 * 0600, written atomically, named by validated ids). Requesters queue; only a reviewer's decision
 * (CLI at a terminal, or the desktop app's prompt window) approves, and the extract is computed
 * then, from the raw file re-hashed against its digest, and stored with the decision. Every step is
 * audited (`request.created`, `.approved`, `.denied`, `.expired`) with digests and sizes, never
 * bytes; each request file names the audit entries that record it, and a stored extract is
 * released only while its `request.approved` entry is in the log with the extract's digest.
 */
export class RequestStore {
  readonly dir: string;
  private readonly ttlMs: number;
  private readonly now: () => Date;
  private readonly actor: Actor;
  private readonly write: typeof writeFileAtomic;

  constructor(
    private readonly vault: Vault,
    private readonly audit: RequestAudit,
    options: RequestStoreOptions = {},
  ) {
    this.dir = join(vault.root, 'requests');
    this.ttlMs = options.ttlMs ?? DEFAULT_REQUEST_TTL_MS;
    if (!Number.isSafeInteger(this.ttlMs) || this.ttlMs < 1000) throw new RangeError('request lifetime must be at least 1000 ms');
    this.now = options.now ?? (() => new Date());
    this.actor = options.actor ?? currentActor();
    this.write = options.writeFile ?? writeFileAtomic;
  }

  /** Queues a request after checking it (see checkNewRequest); audits `request.created`. */
  async create(input: NewRequest, via: RequestActor['via']): Promise<StoredRequest> {
    const checked = await checkNewRequest(this.vault, input);
    await ensurePrivateDir(this.dir);
    return withFileLock(this.lockPath, async () => {
      const { requests } = await this.listUnlocked();
      if (requests.filter((r) => r.state === 'pending').length >= MAX_PENDING) {
        throw new RequestError('too-large', `the review queue already holds ${MAX_PENDING} pending requests; wait for a reviewer`);
      }
      const created = this.now();
      const base: Omit<StoredRequest, 'audit'> = {
        version: 1,
        id: newRequestId(created),
        created_at: created.toISOString(),
        expires_at: new Date(created.getTime() + this.ttlMs).toISOString(),
        requester: { ...this.actor, via },
        artifact: checked.artifact,
        sha256: checked.sha256,
        size: checked.size,
        kind: checked.kind,
        range: checked.range,
        expect: checked.expect,
        search: checked.search,
        reason: checked.reason,
        state: 'pending',
        decision: null,
        extract: null,
        extract_sha256: null,
        extract_bytes: null,
      };
      let stored: StoredRequest | null = null;
      await this.audited('request.created', { ...what(base), via, expires_at: base.expires_at, reason: auditText(base.reason), request_sha256: contentDigest(base) }, null, async (entry) => {
        stored = { ...base, audit: { created: { seq: entry.seq, hash: entry.hash }, decided: null } };
        await this.put(stored, true);
      });
      return stored!;
    });
  }

  /** One request by id; a pending one past its expiry is marked expired (audited once). */
  async get(id: string): Promise<StoredRequest> {
    assertRequestId(id);
    const r = await this.read(id);
    return r.state === 'pending' && this.isDue(r) ? this.expire(id) : r;
  }

  /** Every request, oldest first, with expiries applied; damaged files are reported apart. */
  async list(): Promise<{ requests: StoredRequest[]; errors: RequestReadError[] }> {
    const { requests, errors } = await this.listUnlocked();
    const out: StoredRequest[] = [];
    for (const r of requests) out.push(r.state === 'pending' && this.isDue(r) ? await this.expire(r.id) : r);
    return { requests: out, errors };
  }

  /**
   * Approves a pending request: computes the extract from the raw file (re-hashed first), stores it
   * with the decision and audits `request.approved` with the extract's digest and size. Only
   * reviewer surfaces call this (the CLI after a confirmation at /dev/tty, main after its prompt).
   */
  async approve(id: string, decision: Decision): Promise<StoredRequest> {
    const before = await this.pendingOrThrow(id);
    const redaction = before.kind === 'text' ? (await loadRedaction(this.vault.root, 'on')).policy : undefined;
    const extract = await computeExtract({ path: this.vault.rawPath(before.sha256), sha256: before.sha256, size: before.size, kind: before.kind, range: before.range, expect: before.expect, search: before.search, redaction });
    const digest = extractDigest(extract);
    return this.decide(id, 'request.approved', decision, { extract, extract_sha256: digest.sha256, extract_bytes: digest.bytes }, {
      extract_sha256: digest.sha256,
      extract_bytes: digest.bytes,
      ...(extract.kind === 'digest' && extract.match !== null ? { match: extract.match } : {}),
    });
  }

  /** Denies a pending request (nothing is read); audits `request.denied`. */
  async deny(id: string, decision: Decision): Promise<StoredRequest> {
    await this.pendingOrThrow(id);
    return this.decide(id, 'request.denied', decision, {}, {});
  }

  /**
   * Checks that what an approved request would release is what its reviewer released: the entry
   * the file names must be intact in the chain (AuditLog.entryAt), be this request's
   * `request.approved` with the extract's digest, and commit to the file's content as it is now
   * (contentDigest), so a file edited to "approved", an extract swapped or any other edit is
   * refused as damaged. An artifact whose raw bytes were pruned releases nothing.
   */
  async assertReleasable(r: StoredRequest): Promise<void> {
    if (r.state !== 'approved' || !r.extract || !r.audit.decided) return;
    const digest = extractDigest(r.extract);
    const ref = r.audit.decided;
    const e = (await this.audit.entryAt(ref.seq)) as Record<string, unknown> | null;
    if (!e || e.hash !== ref.hash || e.action !== 'request.approved' || e.request !== r.id || e.extract_sha256 !== digest.sha256 || r.extract_sha256 !== digest.sha256 || e.request_sha256 !== contentDigest(r)) {
      throw new RequestError('damaged', `request ${r.id}: it does not match the request.approved entry of the audit log; nothing released`);
    }
    if (!(await this.vault.hasRaw(r.sha256))) throw new RequestError('not-found', `request ${r.id}: the raw bytes of ${r.artifact} were pruned, and its extract with them; nothing released`);
  }

  /**
   * Removes the extracts of approved requests whose artifact is in `sha256s` (prune calls this
   * before it deletes those raw bytes): the request stays approved, with `extract: null` and
   * `extract_pruned_at`, audited `request.pruned`. Returns the ids changed.
   */
  async pruneExtracts(sha256s: readonly string[]): Promise<string[]> {
    const doomed = new Set(sha256s);
    const changed: string[] = [];
    const names = await readdir(this.dir).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return [] as string[];
      throw err;
    });
    for (const name of names.sort()) {
      const id = name.endsWith('.json') ? name.slice(0, -5) : '';
      if (!isRequestId(id)) continue;
      await withFileLock(this.lockPath, async () => {
        // A request that does not read is left for `vault verify` to report; its extract, if any,
        // cannot be released either (every release reads and checks the file first).
        const current = await this.read(id).catch(() => null);
        if (!current || !doomed.has(current.sha256) || current.extract === null) return;
        const at = this.now().toISOString();
        const base: StoredRequest = { ...current, extract: null, extract_pruned_at: at };
        await this.audited('request.pruned', { ...what(current), extract_sha256: current.extract_sha256 ?? 'none', request_sha256: contentDigest(base) }, current, async (entry) => {
          await this.put({ ...base, audit: { created: current.audit.created, decided: { seq: entry.seq, hash: entry.hash } } }, false);
        });
        changed.push(id);
      });
    }
    return changed;
  }

  private get lockPath(): string {
    return join(this.dir, '.lock');
  }

  private isDue(r: StoredRequest): boolean {
    return Date.parse(r.expires_at) <= this.now().getTime();
  }

  private async pendingOrThrow(id: string): Promise<StoredRequest> {
    const r = await this.get(id);
    if (r.state !== 'pending') throw new RequestError('conflict', `request ${id} is ${r.state}, not pending: it cannot be decided again`);
    return r;
  }

  private async decide(id: string, action: 'request.approved' | 'request.denied', d: Decision, result: Partial<StoredRequest>, details: AuditDetails): Promise<StoredRequest> {
    const note = d.note?.trim() ? d.note.trim().slice(0, MAX_REASON) : null;
    return withFileLock(this.lockPath, async () => {
      // Read again under the lock: another reviewer (or the expiry) may have decided meanwhile.
      const current = await this.read(id);
      if (current.state !== 'pending' || this.isDue(current)) throw new RequestError('conflict', `request ${id} is ${current.state === 'pending' ? 'expired' : current.state}, not pending: it cannot be decided again`);
      const at = this.now().toISOString();
      const base: StoredRequest = { ...current, ...result, state: action === 'request.approved' ? 'approved' : 'denied', decision: { at, by: { ...this.actor, via: d.via }, note } };
      let stored: StoredRequest | null = null;
      await this.audited(action, { ...what(current), via: d.via, ...(note ? { note: auditText(note) } : {}), ...details, request_sha256: contentDigest(base) }, current, async (entry) => {
        stored = { ...base, audit: { created: current.audit.created, decided: { seq: entry.seq, hash: entry.hash } } };
        await this.put(stored, false);
      });
      return stored!;
    });
  }

  /** Marks a due pending request expired, once: under the lock, and only if still pending. */
  private async expire(id: string): Promise<StoredRequest> {
    return withFileLock(this.lockPath, async () => {
      const current = await this.read(id);
      if (current.state !== 'pending') return current;
      const base: StoredRequest = { ...current, state: 'expired' };
      let stored: StoredRequest = base;
      try {
        await this.audited('request.expired', { ...what(current), expired_at: current.expires_at, request_sha256: contentDigest(base) }, current, async (entry) => {
          stored = { ...base, audit: { created: current.audit.created, decided: { seq: entry.seq, hash: entry.hash } } };
          await this.put(stored, false);
        });
      } catch {
        // A vault we cannot write (read-only, full): the state is still computed; the entry waits for the next read.
        return base;
      }
      return stored;
    }).catch((err: unknown) => {
      if (err instanceof RequestError) throw err;
      return this.read(id).then((r) => ({ ...r, state: 'expired' as const }));
    });
  }

  /**
   * Appends the audit entry and writes the request file inside it (`beforeWrite`, under the log's
   * lock), so the file can name its entry. If the file cannot be written nothing is appended; if
   * the entry cannot be written after the file was, the file is put back as it was (or removed),
   * so a full disk leaves neither a half-written request nor a decision without its entry.
   */
  private async audited(action: RequestAuditAction, details: AuditDetails, previous: StoredRequest | null, writeFile: (entry: AuditEntry) => Promise<void>): Promise<void> {
    let wrote = false;
    try {
      await this.audit.append(action, details, async (entry) => {
        await writeFile(entry);
        wrote = true;
      });
    } catch (err) {
      if (wrote) {
        if (previous) await this.put(previous, false).catch(() => undefined);
        else await unlink(join(this.dir, `${String(details.request)}.json`)).catch(() => undefined);
      }
      throw err;
    }
  }

  private async put(r: StoredRequest, exclusive: boolean): Promise<void> {
    await this.write(join(this.dir, `${r.id}.json`), `${JSON.stringify(r, null, 2)}\n`, { mode: PRIVATE_FILE_MODE, exclusive });
  }

  /** Reads and validates one file; a link, bad JSON, a schema failure or a wrong id is 'damaged'. */
  private async read(id: string): Promise<StoredRequest> {
    assertRequestId(id);
    let text: string;
    try {
      // O_NOFOLLOW: a link planted in requests/ must not make the store read (and trust) a file elsewhere.
      const fh = await open(join(this.dir, `${id}.json`), fsc.O_RDONLY | fsc.O_NOFOLLOW);
      try {
        text = await fh.readFile('utf8');
      } finally {
        await fh.close();
      }
    } catch (err) {
      if (isErrno(err, 'ENOENT')) throw new RequestError('not-found', `no request ${id} in this vault`);
      if (isErrno(err, 'ELOOP')) throw new RequestError('damaged', `request ${id} is a symbolic link; refusing to read it`);
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RequestError('damaged', `request ${id} is not valid JSON`);
    }
    const checked = storedRequestSchema.safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new RequestError('damaged', `request ${id} is damaged (${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'invalid'})`);
    }
    if (checked.data.id !== id) throw new RequestError('damaged', `request file ${id}.json holds id ${checked.data.id}`);
    const r = checked.data as StoredRequest;
    const decided = r.state === 'approved' || r.state === 'denied';
    const released = r.extract !== null || r.extract_pruned_at != null;
    if (decided !== (r.decision !== null) || (r.state === 'approved') !== released || (r.extract !== null && r.extract_pruned_at != null)) {
      throw new RequestError('damaged', `request ${id} is damaged (its state and its decision disagree)`);
    }
    return r;
  }

  private async listUnlocked(): Promise<{ requests: StoredRequest[]; errors: RequestReadError[] }> {
    const names = await readdir(this.dir).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return [] as string[];
      throw err;
    });
    const requests: StoredRequest[] = [];
    const errors: RequestReadError[] = [];
    for (const name of names.sort()) {
      const id = name.endsWith('.json') ? name.slice(0, -5) : '';
      if (!isRequestId(id)) continue; // atomic-write leftovers, the lock file
      try {
        requests.push(await this.read(id));
      } catch (err) {
        if (err instanceof RequestError && err.code === 'not-found') continue;
        errors.push({ file: name, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return { requests, errors };
  }
}

/** The audited "what": request id, artifact digest, kind and range (never bytes). */
function what(r: Pick<StoredRequest, 'id' | 'sha256' | 'size' | 'kind' | 'range'>): AuditDetails {
  return { request: r.id, sha256: r.sha256, size: r.size, kind: r.kind, ...(r.range ? { range: [r.range[0], r.range[1]] } : {}) };
}
