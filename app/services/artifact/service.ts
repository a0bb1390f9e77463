// The artifact service main exposes through the bridge (the dispatcher calls it with already
// validated arguments): index jobs in a worker thread, the per-digest index cache in the vault,
// and every query over it, which runs in worker threads too (query-client.ts): main only checks
// the index is there and forwards. Nothing here returns raw bytes or span values but spanValues
// (called for a grant's range); searchRaw returns offsets only and is called with the range the
// caller's grant allows.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { workerTask } from './worker-task';
import { DEFAULT_LIMITS } from '../../../shared/parser';
import type {
  ArtifactRef, Bookmark, ChunkLogView, IndexStatus, Minimap, RemovalReport, ScreenStatus, SearchHits, SecretInfo, SecretValue, PayloadPage, SpanInfo, SpanValue, TextPage, TextPosition,
} from '../../../shared/bridge/types';
import { ensurePrivateDir, fsyncDir, isErrno } from '../../files/fs-atomic';
import { parseRef, type Vault } from '../../vault';
import { BridgeError } from '../bridge/errors';
import { ScreenJobs } from '../screen/jobs';
import { BookmarkStore } from './bookmarks';
import { secretsPolicy, type SecretsSetup } from './build-secrets';
import { vaultSecretsSetup } from './secrets-setup';
import { redactScreenStatus } from '../screen/redact';
import { BuildCancelled, buildIndex } from './build';
import { chunkLogView } from './chunk-log';
import { sanitizerFingerprint } from './fingerprint';
import { DEFAULT_PAGE_BYTES, MAX_LINE_BYTES, type IndexManifest, type IndexSanitizerOptions } from './format';
import { DEFAULT_QUERY_BUDGETS, QueryClient, type QueryBudgets } from './query-client';
import type { QueryMethod } from './query-host';
import { IndexCorrupt, IndexReader, type IndexExpectation } from './reader';
import { resolveWorkerScript } from './worker-script';
import { trace } from './trace';
import type { WorkerInput, WorkerMessage } from './worker';

export interface ArtifactServiceOptions {
  readonly vault: Vault;
  rawPath(sha256: string): string;
  /** Worker script (default: the bundle beside main, or worker.ts bundled on the fly). */
  readonly workerScript?: string;
  /** Build in this thread instead of a worker (tests of the build itself; blocks the event loop per page). */
  readonly inline?: boolean;
  /** Raw bytes per page and checkpoint (default 128 KiB, and at most that: a query replays up to 4 pages). */
  readonly pageBytes?: number;
  /** Display line width in text bytes (default MAX_LINE_BYTES). */
  readonly maxLineBytes?: number;
  /**
   * Segments a build is cut into, each run by its own thread (default: the cores this process may
   * use, at most 4; 1 builds in one run). Inline builds run them one after the other.
   */
  readonly segments?: number;
  /** Smallest artifact a worker build cuts into segments (default 16 MiB). */
  readonly minParallelBytes?: number;
  /**
   * Store the columns of every page (pages.ts) instead of making most pages again on demand from
   * the raw bytes. `auto` (default): for artifacts under STORE_ALL_BELOW, which so still show after
   * their raw bytes were pruned; from there on writing every column costs as much as the parse.
   */
  readonly storeAllPages?: boolean | 'auto';
  /** Sanitizer options of an artifact (default: from the record that holds it, else the defaults). */
  sanitizerFor?(sha256: string): Promise<IndexSanitizerOptions>;
  /** Time budgets of queries and searches (query-client.ts DEFAULT_QUERY_BUDGETS). */
  readonly queryBudgets?: Partial<QueryBudgets>;
  /** Time budget of one screen reconstruction (default: screen/jobs.ts defaultScreenBudgetMs of its size). */
  readonly screenBudgetMs?: number;
  /** Screen worker script (default: the bundle beside main, or screen/worker.ts bundled on the fly). */
  readonly screenWorkerScript?: string;
}

/** Artifacts under this size store every page by default (ArtifactServiceOptions.storeAllPages). */
export const STORE_ALL_BELOW = 16 << 20;
/** Raw bytes per page at most (a query replays at most 4 of them; cold, in the query worker, ~50 ms). */
export const MAX_PAGE_BYTES = 128 << 10;

interface Job {
  state: IndexStatus['state'];
  bytesDone: number;
  totalBytes: number;
  spans: number;
  cached: boolean;
  started: number;
  elapsedMs: number;
  error: string | null;
  cancel: Int32Array;
  done: Promise<void>;
}

/** Open indexes kept at once (each holds 7 file handles and up to a few MB of cached blocks). */
const MAX_OPEN = 4;

export type ArtifactService = ReturnType<typeof createArtifactService>;

export function createArtifactService(opts: ArtifactServiceOptions) {
  const root = opts.vault.root;
  const indexRoot = join(root, 'index');
  // A query replays a page (and up to MAX_REPLAY_PAGES before it): pages are small.
  const pageBytes = Math.min(opts.pageBytes ?? DEFAULT_PAGE_BYTES, MAX_PAGE_BYTES);
  const maxLineBytes = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const segments = Math.max(1, Math.floor(opts.segments ?? Math.min(4, availableParallelism())));
  const jobs = new Map<string, Job>();
  const readers = new Map<string, IndexReader>();
  const bookmarks = new BookmarkStore(root);
  /** What each open index was opened against (the query threads open their own with it). */
  const expects = new Map<string, IndexExpectation>();
  const client = new QueryClient({
    script: () => resolveWorkerScript(opts.workerScript),
    inline: opts.inline === true,
    budgets: { ...DEFAULT_QUERY_BUDGETS, ...opts.queryBudgets },
  });
  const screens = new ScreenJobs({ rawPath: opts.rawPath, inline: opts.inline === true, budgetMs: opts.screenBudgetMs, script: opts.screenWorkerScript });

  const shaOf = (ref: ArtifactRef): string => {
    try {
      return parseRef(ref).sha256;
    } catch {
      throw new BridgeError('bad-request', 'not a restricted:sha256: reference');
    }
  };
  const dirOf = (sha: string): string => join(indexRoot, sha);

  async function rawSize(sha: string): Promise<number> {
    try {
      const st = await lstat(opts.rawPath(sha));
      if (!st.isFile()) throw new BridgeError('not-found', 'the raw artifact is not a regular file');
      return st.size;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) throw new BridgeError('not-found', 'the raw bytes are no longer in the vault (pruned?)');
      throw err;
    }
  }

  async function sanitizerOptions(sha: string): Promise<IndexSanitizerOptions> {
    if (opts.sanitizerFor) return opts.sanitizerFor(sha);
    const { records } = await opts.vault.listRecords();
    for (const rec of records) {
      for (const [stream, ref] of Object.entries(rec.raw)) {
        if (ref.sha256 !== sha) continue;
        const report = (rec.reports as Record<string, { cr_mode?: unknown; limits?: Record<string, unknown> }> | undefined)?.[stream];
        const l = report?.limits ?? {};
        const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : d);
        return {
          cr: report?.cr_mode === 'overwrite' ? 'overwrite' : 'newline',
          limits: {
            maxCsiParamBytes: num(l.max_csi_param_bytes, DEFAULT_LIMITS.maxCsiParamBytes),
            maxStringBytes: num(l.max_string_bytes, DEFAULT_LIMITS.maxStringBytes),
            maxEscIntermediates: num(l.max_esc_intermediates, DEFAULT_LIMITS.maxEscIntermediates),
          },
        };
      }
    }
    return { cr: 'newline', limits: { ...DEFAULT_LIMITS } };
  }

  /** What the secrets column is made with (secrets-setup.ts). */
  const secretsSetup = (): Promise<SecretsSetup> => vaultSecretsSetup(root);

  /** What a cache must match. Raw bytes pruned: the cache still serves text and spans (size unchecked). */
  async function expectation(sha: string) {
    const size = await rawSize(sha).catch((err: unknown) => {
      if (err instanceof BridgeError && err.code === 'not-found') return null;
      throw err;
    });
    const secrets = await secretsSetup();
    return {
      sha256: sha, size, sanitizerFingerprint: sanitizerFingerprint(), sanitizer: await sanitizerOptions(sha), pageBytes, maxLineBytes, rawPath: opts.rawPath(sha),
      secretsKey: secrets.key, secrets,
    };
  }

  function remember(sha: string, r: IndexReader, expect: IndexExpectation): void {
    expects.set(sha, expect);
    const previous = readers.get(sha);
    if (previous && previous !== r) void previous.close();
    readers.delete(sha);
    readers.set(sha, r);
    while (readers.size > MAX_OPEN) {
      const [old, reader] = readers.entries().next().value as [string, IndexReader];
      readers.delete(old);
      void reader.close();
    }
  }

  const opening = new Map<string, Promise<IndexReader | null>>();

  /** The open cache for `sha`, or null when there is none usable (a damaged one is removed). */
  async function openCached(sha: string): Promise<IndexReader | null> {
    const open = readers.get(sha);
    if (open && !open.corruption) return open;
    // Queries arrive in bursts: one open for all of them.
    let pending = opening.get(sha);
    if (!pending) {
      pending = openCachedOnce(sha, open).finally(() => opening.delete(sha));
      opening.set(sha, pending);
    }
    return pending;
  }

  async function openCachedOnce(sha: string, damaged: IndexReader | undefined): Promise<IndexReader | null> {
    if (damaged) await drop(sha);
    const expect = await expectation(sha);
    try {
      const r = await IndexReader.open(dirOf(sha), expect);
      remember(sha, r, expect);
      return r;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      if (err instanceof BridgeError) throw err;
      // Stale, truncated or altered: never trusted, removed so the next build starts clean
      // (left alone when the raw bytes are gone: nothing could rebuild it, and it is not served).
      if (expect.size !== null) await rm(dirOf(sha), { recursive: true, force: true });
      return null;
    }
  }

  async function drop(sha: string): Promise<void> {
    const r = readers.get(sha);
    readers.delete(sha);
    client.drop(sha);
    await r?.close();
    await rm(dirOf(sha), { recursive: true, force: true });
  }

  function status(ref: ArtifactRef, job: Job | undefined, m?: IndexManifest): IndexStatus {
    return {
      ref,
      state: job?.state ?? (m ? 'done' : 'none'),
      bytesDone: m ? m.size : job?.bytesDone ?? 0,
      totalBytes: m ? m.size : job?.totalBytes ?? 0,
      spans: m ? m.counts.spans : job?.spans ?? 0,
      textBytes: m?.counts.textBytes ?? 0,
      textLines: m?.counts.lines ?? 0,
      secrets: m ? { count: m.secrets.count, rules: m.secrets.byRule } : null,
      cached: job?.cached ?? Boolean(m),
      elapsedMs: job ? (job.state === 'running' ? Math.round(performance.now() - job.started) : job.elapsedMs) : 0,
      error: job?.error ?? null,
    };
  }

  async function build(sha: string, job: Job): Promise<void> {
    trace?.('service: build');
    const expect = { ...(await expectation(sha)), size: await rawSize(sha) };
    job.totalBytes = expect.size;
    await ensurePrivateDir(root);
    await ensurePrivateDir(indexRoot);
    const tmp = join(indexRoot, `.build-${sha.slice(0, 16)}-${randomBytes(6).toString('hex')}`);
    await mkdir(tmp, { mode: 0o700 });
    await ensurePrivateDir(tmp);
    const storeAll = (opts.storeAllPages ?? 'auto') === 'auto' ? expect.size < STORE_ALL_BELOW : opts.storeAllPages === true;
    const input: WorkerInput = {
      rawPath: opts.rawPath(sha), outDir: tmp, sha256: sha, sanitizer: expect.sanitizer, sanitizerFingerprint: expect.sanitizerFingerprint,
      pageBytes, maxLineBytes, secrets: expect.secrets,
      cancel: job.cancel.buffer as SharedArrayBuffer, segments: opts.inline ? (opts.segments ?? 1) : segments,
      minParallelBytes: opts.minParallelBytes, storeAll,
    };
    try {
      const outcome = await (opts.inline ? runInline(input, job) : runWorker(input, job));
      if (outcome === 'cancelled') {
        job.state = 'cancelled';
        return;
      }
      trace?.('service: worker done');
      await fsyncDir(tmp);
      await publish(tmp, dirOf(sha));
      client.drop(sha);
      trace?.('service: published');
      const r = await IndexReader.open(dirOf(sha), expect);
      remember(sha, r, expect);
      trace?.('service: opened');
      job.state = 'done';
      job.bytesDone = expect.size;
    } finally {
      await rm(tmp, { recursive: true, force: true });
      job.elapsedMs = Math.round(performance.now() - job.started);
    }
  }

  async function publish(tmp: string, final: string): Promise<void> {
    const old = `${final}.old-${randomBytes(6).toString('hex')}`;
    let moved = false;
    try {
      await rename(final, old);
      moved = true;
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
    await rename(tmp, final);
    await fsyncDir(indexRoot);
    if (moved) await rm(old, { recursive: true, force: true });
  }

  async function runInline(input: WorkerInput, job: Job): Promise<'done' | 'cancelled'> {
    try {
      buildIndex({
        ...input,
        shouldCancel: () => Atomics.load(job.cancel, 0) !== 0,
        onProgress: (bytesDone, spans) => {
          job.bytesDone = bytesDone;
          job.spans = spans;
        },
      });
      return 'done';
    } catch (err) {
      if (err instanceof BuildCancelled) return 'cancelled';
      throw err;
    }
  }

  async function runWorker(input: WorkerInput, job: Job): Promise<'done' | 'cancelled'> {
    const script = await resolveWorkerScript(opts.workerScript);
    const options = { workerData: { ...input, script, airlockArtifactIndex: true }, resourceLimits: { maxOldGenerationSizeMb: 512 } };
    return workerTask<'done' | 'cancelled', WorkerMessage>(script, options, 'index worker', (m, end) => {
      if (m.type === 'progress') {
        job.bytesDone = m.bytesDone;
        job.spans = m.spans;
      } else if (m.type === 'done' || m.type === 'cancelled') end.resolve(m.type);
      else end.reject(new Error(m.message));
    });
  }

  /**
   * A screen status as the viewer gets it: its text through the redaction stage (screen/redact.ts),
   * findings over a secret the index found shown as its marker (an index not built yet: by text alone).
   */
  async function redactedScreen(ref: ArtifactRef, status: ScreenStatus): Promise<ScreenStatus> {
    if (!status.view) return status;
    // Main-side only: the values let a fragment of a secret on the screen be found and hidden.
    const all: readonly [number, number] = [0, Number.MAX_SAFE_INTEGER];
    let secrets: SecretValue[] = [];
    try {
      secrets = await query<SecretValue[]>(ref, 'secretValues', [all[0], all[1], all[0], all[1]]);
    } catch (err) {
      // The index (and so where the secrets are) is not there yet: the view waits for it, shown as still running.
      if (err instanceof BridgeError && err.code === 'unavailable') {
        await startIndex(ref).catch(() => undefined);
        return { ...status, state: 'running', view: null };
      }
      // A damaged index or a query that failed otherwise: the redaction stage's rules alone.
    }
    return redactScreenStatus(status, secretsPolicy(await secretsSetup()), secrets);
  }

  /** The ready index for queries, or 'unavailable' (not built, building, or found damaged). */
  async function ready(ref: ArtifactRef): Promise<{ sha: string; r: IndexReader }> {
    const sha = shaOf(ref);
    const job = jobs.get(sha);
    if (job?.state === 'running') throw new BridgeError('unavailable', 'the index of this artifact is still being built');
    const r = await openCached(sha);
    if (!r) throw new BridgeError('unavailable', 'this artifact has no index yet: call startIndex');
    return { sha, r };
  }

  /**
   * Runs a query in a query thread (`search`: a thread of its own, ended by `signal`); a damaged
   * block found on the way drops the index and starts a rebuild.
   */
  async function query<T>(ref: ArtifactRef, method: QueryMethod, args: unknown[], search: { signal: AbortSignal | null } | null = null): Promise<T> {
    const { sha, r } = await ready(ref);
    const expect = expects.get(sha);
    if (!expect) throw new BridgeError('unavailable', 'this artifact has no index yet: call startIndex');
    const ask = { method, index: { sha, dir: dirOf(sha), expect }, args };
    try {
      return (await (search ? client.search(ask, search.signal) : client.view(ask))) as T;
    } catch (err) {
      if (err instanceof IndexCorrupt || r.corruption) {
        await drop(sha);
        jobs.delete(sha);
        await startIndex(ref).catch(() => undefined);
        throw new BridgeError('unavailable', 'the index of this artifact was damaged and is being rebuilt');
      }
      throw err;
    }
  }

  const starting = new Map<string, Promise<IndexStatus>>();

  /** Starts (or joins) the build of `ref`'s index; a usable cache answers at once (`cached`). */
  function startIndex(ref: ArtifactRef): Promise<IndexStatus> {
    const sha = shaOf(ref);
    let pending = starting.get(sha);
    if (!pending) {
      pending = startIndexOnce(ref, sha).finally(() => starting.delete(sha));
      starting.set(sha, pending);
    }
    return pending;
  }

  async function startIndexOnce(ref: ArtifactRef, sha: string): Promise<IndexStatus> {
    const running = jobs.get(sha);
    if (running?.state === 'running') return status(ref, running);
    const started = performance.now();
    const cached = await openCached(sha);
    if (cached) {
      const job: Job = {
        state: 'done', bytesDone: cached.manifest.size, totalBytes: cached.manifest.size, spans: cached.manifest.counts.spans, cached: true,
        started, elapsedMs: Math.round(performance.now() - started), error: null, cancel: new Int32Array(new SharedArrayBuffer(4)), done: Promise.resolve(),
      };
      jobs.set(sha, job);
      return status(ref, job, cached.manifest);
    }
    const job: Job = {
      state: 'running', bytesDone: 0, totalBytes: await rawSize(sha), spans: 0, cached: false, started, elapsedMs: 0, error: null,
      cancel: new Int32Array(new SharedArrayBuffer(4)), done: Promise.resolve(),
    };
    jobs.set(sha, job);
    job.done = build(sha, job).catch((err: unknown) => {
      job.state = 'failed';
      job.error = err instanceof Error ? err.message.slice(0, 300) : 'indexing failed';
    });
    return status(ref, job);
  }

  async function getIndexStatus(ref: ArtifactRef): Promise<IndexStatus> {
    const sha = shaOf(ref);
    const job = jobs.get(sha);
    if (job?.state === 'running' || job?.state === 'failed' || job?.state === 'cancelled') return status(ref, job);
    const r = await openCached(sha).catch(() => null);
    return status(ref, job, r?.manifest);
  }

  return {
    startIndex,
    getIndexStatus,
    async cancelIndex(ref: ArtifactRef): Promise<IndexStatus> {
      const sha = shaOf(ref);
      const job = jobs.get(sha);
      if (!job || job.state !== 'running') return getIndexStatus(ref);
      Atomics.store(job.cancel, 0, 1);
      await job.done;
      return status(ref, job);
    },
    /** Resolves when the running build of `ref` (if any) has finished (tests, bench). */
    async whenIndexed(ref: ArtifactRef): Promise<IndexStatus> {
      await jobs.get(shaOf(ref))?.done;
      return getIndexStatus(ref);
    },
    async getReport(ref: ArtifactRef): Promise<RemovalReport> {
      return (await ready(ref)).r.manifest.report as RemovalReport;
    },
    getSpans(ref: ArtifactRef, offset: number, length: number): Promise<SpanInfo[]> {
      return query(ref, 'getSpans', [offset, length]);
    },
    findSpan(ref: ArtifactRef, from: number, direction: 1 | -1, filter: { cls?: number; meaning?: string }): Promise<SpanInfo | null> {
      return query(ref, 'findSpan', [from, direction, filter]);
    },
    getMinimap(ref: ArtifactRef, buckets: number): Promise<Minimap> {
      return query(ref, 'getMinimap', [buckets]);
    },
    /**
     * The values of the spans overlapping raw `[offset, offset + length)` that lie wholly inside
     * `range` (the caller's grant): main's dispatcher calls this only after checking the grant.
     */
    spanValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SpanValue[]> {
      return query(ref, 'spanValues', [offset, offset + length, range[0], range[1]]);
    },
    /**
     * The decoded payloads of the spans overlapping raw `[offset, offset + length)` that lie wholly
     * inside `range` (the caller's grant): main's dispatcher calls this only after checking the grant.
     */
    payloads(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<PayloadPage> {
      return query(ref, 'payloads', [offset, offset + length, range[0], range[1]]);
    },
    /** The suspected secrets whose raw extent overlaps `[offset, offset + length)`: rule and place, no value. */
    getSecrets(ref: ArtifactRef, offset: number, length: number): Promise<SecretInfo[]> {
      return query(ref, 'getSecrets', [offset, length]);
    },
    /**
     * The values of the secrets overlapping raw `[offset, offset + length)` that lie wholly inside
     * `range` (the caller's grant): main's dispatcher calls this only after checking the grant.
     */
    secretValues(ref: ArtifactRef, offset: number, length: number, range: readonly [number, number]): Promise<SecretValue[]> {
      return query(ref, 'secretValues', [offset, offset + length, range[0], range[1]]);
    },
    /** Starts or joins the screen reconstruction of `ref` at `size` for `windowId` (screen/jobs.ts). */
    async getScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus> {
      const sha = shaOf(ref);
      return redactedScreen(ref, await screens.get(ref, sha, await rawSize(sha), size, windowId));
    },
    /** Withdraws `windowId`'s interest in that reconstruction; it stops when no window wants it. */
    async cancelScreen(ref: ArtifactRef, size: { cols: number; rows: number }, windowId: number): Promise<ScreenStatus> {
      return redactedScreen(ref, await screens.cancel(ref, shaOf(ref), size, windowId));
    },
    /** A window closed: its interest in every reconstruction ends. */
    windowClosed(windowId: number): void {
      screens.windowClosed(windowId);
    },
    getTextLines(ref: ArtifactRef, firstLine: number, count: number): Promise<TextPage> {
      return query(ref, 'getTextLines', [firstLine, count]);
    },
    textPositionOf(ref: ArtifactRef, rawOffset: number): Promise<TextPosition | null> {
      return query(ref, 'textPositionOf', [rawOffset]);
    },
    /** A text search in a thread of its own, ended by `signal` (the dispatcher's one search per window). */
    searchText(ref: ArtifactRef, text: string, options: { caseSensitive?: boolean }, signal: AbortSignal | null = null): Promise<SearchHits> {
      return query(ref, 'searchText', [text, options.caseSensitive ?? false], { signal });
    },
    async searchRaw(ref: ArtifactRef, range: readonly [number, number] | null, searchQuery: { mode: 'hex' | 'text'; pattern: string }, signal: AbortSignal | null = null): Promise<SearchHits> {
      const sha = shaOf(ref);
      const size = await rawSize(sha);
      return (await client.search({ method: 'searchRaw', index: null, args: [opts.rawPath(sha), size, range, searchQuery] }, signal)) as SearchHits;
    },
    listBookmarks(ref: ArtifactRef): Promise<Bookmark[]> {
      return bookmarks.list(shaOf(ref));
    },
    saveBookmark(ref: ArtifactRef, b: { offset: number; length: number; note: string }): Promise<Bookmark> {
      return bookmarks.save(shaOf(ref), b);
    },
    deleteBookmark(ref: ArtifactRef, id: string): Promise<void> {
      return bookmarks.delete(shaOf(ref), id);
    },
    async getChunkLog(recordId: string): Promise<ChunkLogView> {
      let record;
      try {
        record = await opts.vault.getRecord(recordId);
      } catch (err) {
        if ((err as { code?: string }).code === 'not-found' || isErrno(err, 'ENOENT')) throw new BridgeError('not-found', `no record ${recordId}`);
        throw err;
      }
      return chunkLogView(record);
    },
    /** Closes open indexes (app quit, tests). */
    async close(): Promise<void> {
      for (const job of jobs.values()) if (job.state === 'running') Atomics.store(job.cancel, 0, 1);
      await Promise.all([...jobs.values()].map((j) => j.done));
      await Promise.all([...readers.values()].map((r) => r.close()));
      readers.clear();
      await client.close();
      await screens.close();
    },
  };
}

