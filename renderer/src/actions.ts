// Everything the UI does, as plain functions over the stores and the bridge, so components stay
// small and tests can drive the app without clicking.
import { MAX_RAW_READ, MAX_EXPORT_CHARS } from '../../shared/bridge/limits';
import type { ArtifactSummary, CopyKind, GrantInfo, RecordSummary, SpanInfo, TextLine } from '../../shared/bridge/types';
import { bridge, errorCode, errorText } from './bridge';
import { cArrayText, caretText, compareMarkdown, hexText, reportJson, reportMarkdown, bookmarksMarkdown, selectedText } from './lib/formats';
import { assertInert } from './lib/inert';
import { PAGE_SIZE, pageOf, sliceCached } from './lib/page-cache';
import { compareRange } from './lib/compare-rows';
import { clamp, maxTop, revealRow, rowCount, rowOf } from './lib/scroll';
import { grouped, spanHead } from './lib/spans';
import { closeSession, openSession, session } from './session';
import { useArtifact } from './stores/artifact';
import { useBookmarks } from './stores/bookmarks';
import { initialGrants, useGrants } from './stores/grants';
import { initialScreen, useScreen } from './stores/screen';
import { initialSearch, useSearch, type SearchMode } from './stores/search';
import { initialSelection, selectedRange, useSelection } from './stores/selection';
import { useTriage } from './stores/triage';
import { notify, useView } from './stores/view';

/** Bytes per hex row. */
export const ROW_BYTES = 16;
/** Largest selection copied or exported as hex (1 MiB: one readRaw, ~3 MiB of text). */
export const MAX_COPY_BYTES = MAX_RAW_READ;
export const MINIMAP_BUCKETS = 1024;

// ---------------------------------------------------------------- vault

let openedAtStart = false;

export async function loadVault(): Promise<void> {
  useArtifact.setState({ loading: true, error: null });
  try {
    const [vault, records] = await Promise.all([bridge().getVaultInfo(), bridge().listRecords()]);
    useArtifact.setState({ vault, records, loading: false });
    // Started on one artifact (`airlock open FILE|REF`): open it at once, once.
    if (vault.open && !openedAtStart) {
      openedAtStart = true;
      const record = records.find((r) => r.artifacts.some((a) => a.ref === vault.open));
      const artifact = record?.artifacts.find((a) => a.ref === vault.open);
      if (record && artifact) await openArtifact(record, artifact);
    }
  } catch (e) {
    useArtifact.setState({ loading: false, error: errorText(e) });
  }
}

export async function openFile(): Promise<void> {
  try {
    const record = await bridge().openFile();
    if (!record) return;
    await loadVault();
    const artifact = record.artifacts[0];
    if (artifact) await openArtifact(record, artifact);
  } catch (e) {
    notify(`Open file failed: ${errorText(e)}`);
  }
}

// ---------------------------------------------------------------- artifact

let indexPoll: ReturnType<typeof setTimeout> | null = null;

export async function openArtifact(record: RecordSummary, artifact: ArtifactSummary): Promise<void> {
  // Main's grants outlive the view: a grant for this or another artifact is found again when
  // its artifact is (re)opened (adoptGrant); only the bytes this window cached are dropped.
  forgetRaw();
  if (indexPoll) clearTimeout(indexPoll);
  const ref = artifact.ref;
  // Back in the vault browser, the focus returns to this artifact's row.
  useTriage.setState({ focusRef: ref });
  openSession(ref, artifact.size, (n) => useArtifact.setState({ totalLines: n }));
  useArtifact.setState({ record, artifact, status: null, report: null, minimap: null, totalLines: 0, error: null });
  useSelection.setState({ ...initialSelection }, true);
  useSearch.setState({ ...initialSearch }, true);
  useBookmarks.setState({ list: [], error: null });
  useScreen.setState((s) => ({ ...initialScreen, cols: s.cols, rows: s.rows }), true);
  useGrants.setState(initialGrants(), true);
  useView.setState({ hexTop: 0, textTop: 0, mainTab: 'bytes', hoverOffset: null, notice: null });
  try {
    const status = await bridge().startIndex(ref);
    useArtifact.setState({ status });
    if (status.state === 'running') await waitForIndex(ref);
    if (useArtifact.getState().artifact?.ref !== ref) return;
    const indexed = useArtifact.getState().status?.state === 'done';
    if (!indexed) {
      // The report comes from the record and needs no index; the rest waits for "Index again".
      const report = await bridge().getReport(ref).catch(() => null);
      if (useArtifact.getState().artifact?.ref === ref) useArtifact.setState({ report });
      return;
    }
    const [report, minimap, first, marks] = await Promise.all([
      bridge().getReport(ref),
      bridge().getMinimap(ref, MINIMAP_BUCKETS),
      bridge().getTextLines(ref, 0, 1),
      bridge().listBookmarks(ref).catch(() => []),
    ]);
    if (useArtifact.getState().artifact?.ref !== ref) return;
    useArtifact.setState({ report, minimap, totalLines: first.totalLines });
    useBookmarks.setState({ list: [...marks] });
    await adoptGrant(ref);
  } catch (e) {
    useArtifact.setState({ error: errorText(e) });
  }
}

function waitForIndex(ref: string): Promise<void> {
  return new Promise((resolve) => {
    const poll = async () => {
      try {
        const status = await bridge().getIndexStatus(ref);
        if (useArtifact.getState().artifact?.ref !== ref) return resolve();
        useArtifact.setState({ status });
        if (status.state === 'running') indexPoll = setTimeout(poll, 150);
        else resolve();
      } catch {
        resolve();
      }
    };
    indexPoll = setTimeout(poll, 50);
  });
}

export async function cancelIndex(): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (ref) useArtifact.setState({ status: await bridge().cancelIndex(ref) });
}

export async function retryIndex(): Promise<void> {
  const { record, artifact } = useArtifact.getState();
  if (record && artifact) await openArtifact(record, artifact);
}

/**
 * Back to the vault browser. The grant is not revoked (it stands until it expires or is revoked
 * here or in main; the vault browser lists it); the bytes this window cached leave memory.
 */
export async function closeArtifact(): Promise<void> {
  forgetRaw();
  closeSession();
  useArtifact.setState({ record: null, artifact: null, status: null, report: null, minimap: null, totalLines: 0 });
}

// ---------------------------------------------------------------- raw access

export async function requestRaw(): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref || useGrants.getState().phase === 'asking') return;
  useGrants.setState({ phase: 'asking', why: null });
  try {
    const outcome = await bridge().requestRawAccess(ref, {});
    if (useArtifact.getState().artifact?.ref !== ref) return;
    if (outcome.state === 'granted') {
      useGrants.setState({ phase: 'granted', grant: outcome.grant, why: null, now: Date.now() });
      // Chips show their values now (asked for under the grant as they render).
      useView.setState((v) => ({ textVersion: v.textVersion + 1 }));
      const { hexTop, hexVisible } = useView.getState();
      ensureRaw(hexTop * ROW_BYTES, (hexVisible + 2) * ROW_BYTES);
    } else {
      useGrants.setState({ phase: 'denied', grant: null, why: outcome.why });
    }
  } catch (e) {
    useGrants.setState({ phase: 'denied', grant: null, why: errorText(e) });
  }
}

/**
 * Leaves the open artifact's raw bytes behind without ending main's grant: every cached page is
 * dropped and the grant state starts over (the next open adopts a grant main still holds).
 */
function forgetRaw(): void {
  const s = session();
  if (s) {
    s.pages.clear();
    s.inflight.clear();
    s.rawGeneration++;
  }
  if (useGrants.getState().grant) useView.setState((v) => ({ rawVersion: v.rawVersion + 1 }));
  useGrants.setState(initialGrants(), true);
}

/** This window's live grants (main's list), for the vault browser; [] when main cannot say. */
export async function liveGrants(): Promise<GrantInfo[]> {
  try {
    const now = Date.now();
    return (await bridge().listGrants()).filter((g) => g.expiresAt > now);
  } catch {
    return [];
  }
}

/** Revokes one of this window's grants from the vault browser. */
export async function revokeGrantById(id: string): Promise<void> {
  try {
    await bridge().revokeGrant(id);
    notify('Raw access revoked');
  } catch (e) {
    notify(`Revoke failed: ${errorText(e)}`);
  }
}

/** Ends the grant: every raw page leaves memory and the DOM. `revoke` asks main to revoke it too. */
export async function endGrant(why: string | null, revoke: boolean): Promise<void> {
  const { grant } = useGrants.getState();
  const s = session();
  if (s) {
    s.pages.clear();
    s.values.clear();
    s.secrets.clear();
    s.inflight.clear();
    s.rawGeneration++;
  }
  if (grant) {
    useGrants.setState({ phase: 'ended', grant: null, why });
    useView.setState((v) => ({ rawVersion: v.rawVersion + 1, textVersion: v.textVersion + 1 }));
    if (revoke) await bridge().revokeGrant(grant.id).catch(() => undefined);
  }
}

export function revokeRaw(): Promise<void> {
  return endGrant('You revoked raw access. Cached bytes were dropped.', true);
}

/** Called every second: drops the grant when it expires; every few seconds asks main it still stands. */
export function tickGrant(now = Date.now()): void {
  const { grant } = useGrants.getState();
  useGrants.setState({ now });
  if (!grant) return;
  if (grant.expiresAt <= now) {
    void endGrant('Raw access expired. Cached bytes were dropped.', false);
    return;
  }
  if (now - lastGrantCheck >= GRANT_CHECK_MS) {
    lastGrantCheck = now;
    void bridge().listGrants().then((live) => {
      const still = useGrants.getState().grant;
      if (still && still.id === grant.id && !live.some((g) => g.id === grant.id)) void endGrant('Raw access was revoked in main. Cached bytes were dropped.', false);
    }).catch(() => undefined);
  }
}

const GRANT_CHECK_MS = 5000;
let lastGrantCheck = 0;

/** A grant this window already holds for `ref` (e.g. after a reload), if main still has one. */
async function adoptGrant(ref: string): Promise<void> {
  try {
    const live = (await bridge().listGrants()).find((g) => g.ref === ref && g.expiresAt > Date.now());
    if (live && useArtifact.getState().artifact?.ref === ref && !useGrants.getState().grant) {
      useGrants.setState({ phase: 'granted', grant: live, why: null, now: Date.now() });
      useView.setState((v) => ({ textVersion: v.textVersion + 1 }));
    }
  } catch {
    // no grant to adopt
  }
}

/** Reads the raw pages covering `[offset, offset + length)` into the cache (only under a grant). */
export function ensureRaw(offset: number, length: number): Promise<void> {
  const s = session();
  const { grant } = useGrants.getState();
  if (!s || !grant || length <= 0) return Promise.resolve();
  const first = pageOf(Math.max(0, offset));
  const last = pageOf(Math.min(s.size - 1, offset + length - 1));
  const all: Promise<void>[] = [];
  for (let index = first; index <= last; index++) {
    if (s.pages.has(index)) continue;
    const pending = s.inflight.get(index);
    if (pending) {
      all.push(pending);
      continue;
    }
    const start = index * PAGE_SIZE;
    const gen = s.rawGeneration;
    const p = bridge().readRaw(grant.id, start, Math.min(PAGE_SIZE, s.size - start))
      .then((page) => {
        if (session() !== s || s.rawGeneration !== gen) return;
        s.pages.set(index, page.bytes);
        useView.setState((v) => ({ rawVersion: v.rawVersion + 1 }));
      })
      .catch((e) => {
        const code = errorCode(e);
        if (code === 'expired' || code === 'no-grant') void endGrant('Raw access ended in main. Cached bytes were dropped.', false);
      })
      .finally(() => {
        if (s.inflight.get(index) === p) s.inflight.delete(index);
      });
    s.inflight.set(index, p);
    all.push(p);
  }
  return Promise.all(all).then(() => undefined);
}

/** Raw bytes of a range under the grant (cache first, then readRaw ≤ 1 MiB); null without a grant. */
export async function readRange(start: number, end: number): Promise<Uint8Array | null> {
  const s = session();
  const { grant } = useGrants.getState();
  if (!s || !grant) return null;
  const cached = sliceCached(s.pages, start, end - start);
  if (cached) return cached;
  const out = new Uint8Array(end - start);
  for (let at = start; at < end; at += MAX_RAW_READ) {
    const page = await bridge().readRaw(grant.id, at, Math.min(MAX_RAW_READ, end - at));
    out.set(page.bytes, at - start);
  }
  return out;
}

// ---------------------------------------------------------------- cursor, selection, linking

function size(): number {
  return useArtifact.getState().artifact?.size ?? 0;
}

/**
 * Longest a far move keeps the rows on screen while the bytes of the rows it goes to are read.
 * Drawing the new rows first with their bytes still unread ('··') costs a render and a layout on
 * the path of the bytes (the answer waits for the renderer's thread), then a second render.
 */
const HOLD_ROWS_MS = 150;

let moveSeq = 0;

/**
 * Scrolls the hex view so `offset` shows (placed a third down when it has to move). Under a grant,
 * a move to rows whose bytes are not cached lands once they are (at most HOLD_ROWS_MS later), in
 * one render. Returns the fetch of the rows' bytes (null when it did not move).
 */
export function revealOffset(offset: number): Promise<unknown> | null {
  const total = rowCount(size(), ROW_BYTES);
  const { hexTop, hexVisible } = useView.getState();
  const row = rowOf(offset, ROW_BYTES);
  if (row >= hexTop && row < hexTop + hexVisible) return null;
  const top = clamp(row - Math.floor(hexVisible / 3), 0, maxTop(total, hexVisible));
  const seq = ++moveSeq;
  const bytes = prefetchView(top, hexVisible);
  if (bytes === null || !bytes.pending) {
    useView.setState({ hexTop: top });
    return bytes?.done ?? null;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, HOLD_ROWS_MS);
  });
  void Promise.race([bytes.raw.catch(() => undefined), late]).then(() => {
    clearTimeout(timer);
    // A later move (or a scroll) decides where the view is.
    if (seq === moveSeq) useView.setState({ hexTop: top });
  });
  return bytes.done;
}

/** A move of the view by other means (scrolling): a far move still waiting for its bytes no longer lands. */
export function viewMoved(): void {
  moveSeq++;
}

/**
 * Asks for the bytes of the rows at `top`, before anything else the move triggers, and their
 * spans once the bytes are in (colours follow the bytes; text linking waits for both, see
 * linkAfter), so main answers the bytes first. The hex view's effect asks the same for whatever
 * rows it shows (pages in flight are shared, not asked twice).
 * `raw`: the bytes are in; `done`: the spans too; `pending`: some of the bytes were not cached.
 */
export function prefetchView(top: number, visible: number): { raw: Promise<unknown>; done: Promise<unknown>; pending: boolean } | null {
  const s = session();
  if (!s) return null;
  const from = Math.max(0, (top - 8) * ROW_BYTES);
  const length = Math.min((visible + 16) * ROW_BYTES, s.size - from);
  if (length <= 0) return null;
  const granted = useGrants.getState().grant !== null;
  const pending = granted && sliceCached(s.pages, from, length) === null;
  const raw = granted ? ensureRaw(from, length) : Promise.resolve();
  return { raw, done: raw.then(() => s.spans.ensureRange(from, length)), pending };
}

let linkSeq = 0;

/** Longest a far move holds text linking back for the hex rows it moved to. */
const LINK_AFTER_ROWS_MS = 250;

/**
 * Links the text once the hex rows a far move needs have arrived (or after LINK_AFTER_ROWS_MS):
 * the text page the link fetches is larger and would otherwise be served and drawn first.
 */
function linkAfter(rows: Promise<unknown> | null, offset: number): void {
  if (!rows) {
    void linkToText(offset);
    return;
  }
  const seq = ++linkSeq;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, LINK_AFTER_ROWS_MS);
  });
  void Promise.race([rows.catch(() => undefined), late]).then(() => {
    clearTimeout(timer);
    if (seq === linkSeq) void linkToText(offset);
  });
}

/** Lights up the text line the byte at `offset` went to, and scrolls the text view to it. */
export async function linkToText(offset: number): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref) return;
  const seq = ++linkSeq;
  try {
    const pos = await bridge().textPositionOf(ref, offset);
    if (seq !== linkSeq || !pos) return;
    useSelection.setState({ textLine: pos.line, textPiece: pos.piece });
    const { textTop, textVisible } = useView.getState();
    const total = useArtifact.getState().totalLines;
    if (pos.line < textTop || pos.line >= textTop + textVisible) {
      useView.setState({ textTop: clamp(pos.line - Math.floor(textVisible / 3), 0, maxTop(total, textVisible)) });
    } else {
      useView.setState({ textTop: revealRow(textTop, pos.line, textVisible, total) });
    }
  } catch {
    // linking is best effort; the hex selection stands
  }
}

/** Moves the cursor; `extend` grows the selection from the anchor (shift). */
export function moveCursor(offset: number, extend = false, link = true): void {
  const n = size();
  if (n === 0) return;
  const cursor = clamp(offset, 0, n - 1);
  const { anchor } = useSelection.getState();
  if (extend) {
    const start = Math.min(anchor, cursor);
    const end = Math.max(anchor, cursor) + 1;
    useSelection.setState({ cursor, range: [start, end] });
  } else {
    useSelection.setState({ cursor, anchor: cursor, range: null });
  }
  const rows = revealOffset(cursor);
  if (link) linkAfter(rows, cursor);
}

/** Selects `[start, end)`, puts the cursor on its first byte and shows it on both sides. */
export function selectRange(start: number, end: number, link = true): void {
  const n = size();
  if (n === 0) return;
  const s = clamp(start, 0, n - 1);
  const e = clamp(end, s + 1, n);
  useSelection.setState({ cursor: s, anchor: s, range: e - s > 1 ? [s, e] : null });
  const rows = revealOffset(s);
  if (link) linkAfter(rows, s);
}

/** Text → bytes: a piece of text or a chip was clicked. */
export function selectFromText(line: TextLine, pieceIndex: number): void {
  const piece = line.pieces[pieceIndex];
  if (!piece) return;
  const [start, length] = piece.t === 'chip' ? [piece.span.offset, piece.span.length] : piece.t === 'secret' ? [piece.secret.offset, piece.secret.length] : [piece.raw, piece.rawLength];
  selectRange(start, start + Math.max(1, length), false);
  useSelection.setState({ textLine: line.line, textPiece: pieceIndex });
}

/** Selects text line `n` (its raw bytes), shows it in the text view, and its bytes in the hex view. */
export async function selectLine(n: number): Promise<void> {
  const s = session();
  if (!s) return;
  const [line] = await s.text.lines(n, 1);
  if (!line || session() !== s) return;
  selectRange(line.rawStart, Math.max(line.rawStart + 1, line.rawEnd), false);
  useSelection.setState({ textLine: line.line, textPiece: null });
  const { textTop, textVisible } = useView.getState();
  useView.setState({ textTop: revealRow(textTop, line.line, textVisible, useArtifact.getState().totalLines) });
}

// ---------------------------------------------------------------- report walk

/** Next or previous span of a class/meaning from the cursor; selects it. */
export async function walkSpan(filter: { cls?: number; meaning?: string }, direction: 1 | -1): Promise<boolean> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref) return false;
  // findSpan: dir 1 finds a span starting at or after `from`, dir -1 one starting before it.
  const cursor = useSelection.getState().cursor;
  const from = direction === 1 ? cursor + 1 : cursor;
  try {
    const span = await bridge().findSpan(ref, from, direction, filter);
    if (!span) {
      notify(direction === 1 ? 'No further occurrence after the cursor' : 'No earlier occurrence before the cursor');
      return false;
    }
    selectRange(span.offset, span.offset + span.length);
    return true;
  } catch (e) {
    notify(errorText(e));
    return false;
  }
}

// ---------------------------------------------------------------- search

export async function runSearch(): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  const { query, mode, caseSensitive } = useSearch.getState();
  if (!ref || query.trim() === '') return;
  const grant = useGrants.getState().grant;
  if (mode !== 'text' && !grant) {
    useSearch.setState({ error: 'Searching raw bytes needs raw access: use Show raw bytes first.' });
    return;
  }
  useSearch.setState({ busy: true, error: null });
  try {
    const hits = mode === 'text'
      ? await bridge().searchText(ref, query, { caseSensitive })
      : await bridge().searchRaw(grant!.id, { mode: mode === 'raw-hex' ? 'hex' : 'text', pattern: query });
    useSearch.setState({ busy: false, hits: hits.hits, total: hits.total, hitLength: Math.max(1, hits.hitLength), index: -1, ran: { query, mode }, elapsedMs: hits.elapsedMs });
    if (hits.hits.length > 0) gotoHit(1);
    else notify('No hits');
  } catch (e) {
    const stopped = e instanceof Error && e.message.startsWith('[cancelled]');
    useSearch.setState({ busy: false, error: stopped ? 'Search stopped.' : errorText(e), hits: [], total: 0, index: -1 });
  }
}

/** Ends this window's running search in main (its call then fails with [cancelled]). */
export async function stopSearch(): Promise<void> {
  await bridge().cancelSearch().catch(() => undefined);
}

export function setSearchMode(mode: SearchMode): void {
  useSearch.setState({ mode, error: null });
}

/** Moves to the next (1) or previous (-1) hit, wrapping, and selects it. */
export function gotoHit(direction: 1 | -1): void {
  const { hits, index, hitLength } = useSearch.getState();
  if (hits.length === 0) return;
  let next: number;
  if (index < 0) {
    const cursor = useSelection.getState().cursor;
    next = direction === 1 ? Math.max(0, hits.findIndex((h) => h >= cursor)) : hits.length - 1;
  } else next = (index + direction + hits.length) % hits.length;
  useSearch.setState({ index: next });
  selectRange(hits[next], hits[next] + hitLength);
}

// ---------------------------------------------------------------- bookmarks

/** How often a running screen reconstruction is asked where it stands. */
const SCREEN_POLL_MS = 400;

/**
 * Runs the screen engine (in a worker of main's) on the open artifact, for a terminal of `cols` x
 * `rows`, and follows its progress until it is done, failed or cancelled (or another size or
 * artifact is asked for).
 */
export async function loadScreen(cols: number, rows: number): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref) return;
  const key = `${ref}:${cols}x${rows}`;
  useScreen.setState({ cols, rows, phase: 'loading', error: null, key, progress: null });
  try {
    for (;;) {
      const st = await bridge().getScreen(ref, { cols, rows });
      if (useScreen.getState().key !== key) return;
      if (st.state === 'done' && st.view) {
        useScreen.setState({ phase: 'ready', view: st.view, progress: null });
        return;
      }
      if (st.state !== 'running') {
        useScreen.setState({ phase: 'error', view: null, error: st.error ?? `the reconstruction ${st.state}`, progress: null });
        return;
      }
      useScreen.setState({ progress: { bytesDone: st.bytesDone, totalBytes: st.totalBytes, elapsedMs: st.elapsedMs } });
      await new Promise((r) => setTimeout(r, SCREEN_POLL_MS));
      if (useScreen.getState().key !== key) return;
    }
  } catch (e) {
    if (useScreen.getState().key === key) useScreen.setState({ phase: 'error', view: null, error: errorText(e), progress: null });
  }
}

/** Stops following the running reconstruction; main stops it when no window wants it any more. */
export async function cancelScreen(): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  const { cols, rows, key } = useScreen.getState();
  if (!ref || key === null) return;
  useScreen.setState({ phase: 'error', view: null, error: 'Cancelled.', key: null, progress: null });
  await bridge().cancelScreen(ref, { cols, rows }).catch(() => undefined);
}

export async function addBookmark(note: string): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref) return;
  const [start, end] = selectedRange(useSelection.getState());
  try {
    const saved = await bridge().saveBookmark(ref, { offset: start, length: end - start, note: note.slice(0, 2000) });
    useBookmarks.setState((b) => ({ list: [...b.list, saved].sort((x, y) => x.offset - y.offset), error: null }));
    notify(`Bookmarked 0x${start.toString(16)}`);
  } catch (e) {
    useBookmarks.setState({ error: errorText(e) });
  }
}

export async function deleteBookmark(id: string): Promise<void> {
  const ref = useArtifact.getState().artifact?.ref;
  if (!ref) return;
  try {
    await bridge().deleteBookmark(ref, id);
    useBookmarks.setState((b) => ({ list: b.list.filter((x) => x.id !== id) }));
  } catch (e) {
    useBookmarks.setState({ error: errorText(e) });
  }
}

// ---------------------------------------------------------------- copy and export

async function selectionBytes(): Promise<{ bytes: Uint8Array; start: number } | null> {
  const [start, end] = selectedRange(useSelection.getState());
  if (end - start > MAX_COPY_BYTES) {
    notify(`Select at most ${MAX_COPY_BYTES.toLocaleString('en-US')} bytes to copy or export as hex`);
    return null;
  }
  const bytes = await readRange(start, end);
  if (!bytes) {
    notify('Copying bytes (as hex, caret or C) needs raw access');
    return null;
  }
  return { bytes, start };
}

/**
 * The sanitized text of the selection: the kept text of the bytes selected, cut at the selection's
 * ends (text whose bytes map one to one is cut exactly; a replaced piece counts whole), lines
 * joined as the text view shows them. `removed` counts the removed spans the selection holds.
 */
async function selectionText(): Promise<{ text: string; removed: SpanInfo[] }> {
  const s = session();
  const ref = useArtifact.getState().artifact?.ref;
  if (!s || !ref) return { text: '', removed: [] };
  const [start, end] = selectedRange(useSelection.getState());
  const a = await bridge().textPositionOf(ref, start);
  const b = await bridge().textPositionOf(ref, end - 1);
  if (!a || !b) return { text: '', removed: [] };
  const lines = await s.text.lines(a.line, Math.min(MAX_COPY_LINES, b.line - a.line + 1));
  return selectedText(lines, start, end);
}

/** Most lines one Copy Text takes. */
const MAX_COPY_LINES = 2000;

/** Copies text the user selected in the sanitized view (already sanitized; checked inert). */
export async function copyPlainText(text: string): Promise<void> {
  try {
    await bridge().copyText('text', assertInert(text));
    notify('Copied sanitized text');
  } catch (e) {
    notify(`Copy refused: ${errorText(e)}`);
  }
}

export async function copySelection(kind: CopyKind): Promise<void> {
  try {
    let text: string;
    if (kind === 'text') {
      const got = await selectionText();
      // Nothing kept: say why, and put nothing on the clipboard (no empty write, no audit entry).
      if (got.text === '') {
        notify(nothingToCopy(got.removed));
        return;
      }
      text = got.text;
    } else if (kind === 'offset') {
      const [start, end] = selectedRange(useSelection.getState());
      text = end - start > 1 ? `0x${start.toString(16)}-0x${(end - 1).toString(16)}` : `0x${start.toString(16)}`;
    } else {
      const got = await selectionBytes();
      if (!got) return;
      text = kind === 'hex' ? hexText(got.bytes) : kind === 'caret' ? caretText(got.bytes) : cArrayText(got.bytes, got.start);
    }
    await bridge().copyText(kind, text);
    notify(`Copied ${kind === 'c-array' ? 'C array' : kind === 'text' ? 'sanitized text' : kind}`);
  } catch (e) {
    notify(`Copy refused: ${errorText(e)}`);
  }
}

/** Why Copy Text copied nothing: the selection holds only removed spans (named), or no text at all. */
function nothingToCopy(removed: readonly SpanInfo[]): string {
  if (removed.length === 0) return 'Nothing copied: the selection holds no sanitized text';
  const first = spanHead(removed[0]);
  const what = removed.length === 1 ? `a removed span (${first})` : `${removed.length} removed spans (${first}, …)`;
  return `Nothing copied: the selection is ${what}, which has no sanitized text`;
}

function baseName(): string {
  const a = useArtifact.getState().artifact;
  return a ? `airlock-${a.sha256.slice(0, 12)}` : 'airlock';
}

function title(): string {
  const { record, artifact } = useArtifact.getState();
  return `${record?.title ?? 'artifact'} (${artifact?.stream ?? ''})`;
}

async function save(kind: Parameters<ReturnType<typeof bridge>['exportText']>[0], name: string, text: string): Promise<void> {
  if (text.length > MAX_EXPORT_CHARS) {
    notify('Export too large: select less');
    return;
  }
  try {
    const r = await bridge().exportText(kind, name, text);
    notify(r.saved ? `Exported ${r.name ?? name}` : 'Export cancelled');
  } catch (e) {
    notify(`Export refused: ${errorText(e)}`);
  }
}

/**
 * Main writes the hex dump: of the selection, or of the whole artifact (all the grant covers).
 * The notice and main's audit entry say which.
 */
export async function exportHexDump(scope: 'selection' | 'artifact'): Promise<void> {
  const grant = useGrants.getState().grant;
  if (!grant) {
    notify('Exporting a hex dump needs raw access');
    return;
  }
  const [start, end] = selectedRange(useSelection.getState());
  try {
    const r = await bridge().exportHexDump(grant.id, scope === 'selection' ? { range: [start, end] } : {});
    const what = r.scope === 'selection' ? `the selection (${grouped(r.range[1] - r.range[0])} bytes)` : r.scope === 'artifact' ? `the whole artifact (${grouped(r.range[1] - r.range[0])} bytes)` : `the granted range (${grouped(r.range[1] - r.range[0])} bytes)`;
    notify(r.saved ? `Exported a hex dump of ${what} to ${r.name}` : 'Export cancelled');
  } catch (e) {
    notify(`Export refused: ${errorText(e)}`);
  }
}

export async function exportReport(format: 'json' | 'md'): Promise<void> {
  const { report, artifact } = useArtifact.getState();
  if (!report || !artifact) return;
  if (format === 'json') await save('report-json', `${baseName()}-report.json`, reportJson(report, artifact.ref));
  else await save('report-md', `${baseName()}-report.md`, reportMarkdown(report, artifact.ref, title()));
}

/** The comparison of the lines in view as Markdown, rows cut at sequence boundaries as Compare shows them. */
export async function exportCompare(maxLines = 2000): Promise<void> {
  const s = session();
  const artifact = useArtifact.getState().artifact;
  if (!s || !artifact) return;
  const { textTop } = useView.getState();
  const lines = await s.text.lines(textTop, maxLines);
  const granted = useGrants.getState().grant !== null;
  const ranges = new Map<number, [number, number]>();
  const raws = new Map<number, Uint8Array | null>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    await s.spans.ensureRange(Math.max(0, l.rawStart - 1), 2);
    await s.spans.ensureRange(Math.max(0, l.rawEnd - 1), 2);
    const prev = lines[i - 1] ?? (l.line > 0 ? s.text.line(l.line - 1) : undefined);
    const range = compareRange(l, lines[i + 1] ?? s.text.line(l.line + 1), (o) => s.spans.outerAt(o), prev);
    ranges.set(l.line, range);
    if (granted) raws.set(l.line, range[1] - range[0] > 4096 ? null : await readRange(range[0], range[1]));
  }
  await save('compare-md', `${baseName()}-compare.md`, compareMarkdown(lines, (l) => ranges.get(l.line) ?? [l.rawStart, l.rawEnd], (l) => raws.get(l.line) ?? null, artifact.ref, title()));
}

export async function exportBookmarks(): Promise<void> {
  const artifact = useArtifact.getState().artifact;
  if (artifact) await save('bookmarks-md', `${baseName()}-bookmarks.md`, bookmarksMarkdown(useBookmarks.getState().list, artifact.ref));
}
