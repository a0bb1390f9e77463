// Following a running capture: the list for the vault browser, the poll loop of the follow view
// (one followRunning call at a time, again at once while main has more text, else every POLL_MS),
// the Screen tab on what has arrived, and the switch to the sealed record when the capture ends.
import type { FollowUpdate, RunningSummary } from '../../shared/bridge/types';
import { bridge, errorText } from './bridge';
import { loadVault, openArtifact } from './actions';
import { resetFollowHex } from './follow-hex';
import { appendFollowText, emptyFollowText, type FollowText } from './lib/follow-text';
import { useArtifact } from './stores/artifact';
import { initialFollow, useFollow } from './stores/follow';
import { notify } from './stores/view';

/** Time between polls while the capture runs (main reads its log at most every 100 ms). */
export const POLL_MS = 300;
/** Time between polls of a capture whose Airlock is gone (waiting for it to be sealed as interrupted). */
const IDLE_POLL_MS = 2000;
/** Minimap stretches asked for. */
export const FOLLOW_BUCKETS = 256;
const SCREEN_POLL_MS = 200;

/** The followed capture's lines (not React state: the view reads them when textVersion changes). */
let text: FollowText = emptyFollowText();
/** Bumped on every open and close, so a late answer of an earlier follow is dropped. */
let generation = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

export function followText(): FollowText {
  return text;
}

/** The running captures (for the vault browser); [] when main cannot say. */
export async function loadRunning(): Promise<void> {
  try {
    useFollow.setState({ running: await bridge().listRunning() });
  } catch {
    useFollow.setState({ running: [] });
  }
}

/** Opens the follow view on `capture`'s `stream` and follows it until it is sealed or closed. */
export function openRunning(capture: RunningSummary, stream = capture.streams[0] ?? 'stdout'): void {
  stop();
  const gen = ++generation;
  text = emptyFollowText();
  const tab = useFollow.getState().open?.id === capture.id ? useFollow.getState().tab : 'text';
  useFollow.setState({ open: capture, stream, last: null, textVersion: 0, autoscroll: true, unseen: 0, tab, screen: null, screenError: null, error: null });
  // A grant covers one stream: the hex pane starts over (adopting a grant main still holds on it).
  resetFollowHex({ id: capture.id, stream });
  void poll(gen, capture.id, stream, 0);
}

/** Back to the vault browser. */
export function closeFollow(): void {
  stop();
  generation++;
  text = emptyFollowText();
  // The grant stands until it expires or is revoked (the vault browser lists it); its bytes leave memory.
  resetFollowHex(null);
  useFollow.setState({ ...initialFollow(), running: useFollow.getState().running });
  void loadRunning();
}

function stop(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

async function poll(gen: number, id: string, stream: string, from: number): Promise<void> {
  let u: FollowUpdate;
  try {
    u = await bridge().followRunning(id, stream, from, FOLLOW_BUCKETS);
  } catch (e) {
    if (gen !== generation) return;
    useFollow.setState({ error: errorText(e) });
    // A refusal ('not-found': it is gone without a record) ends following; anything else is asked again.
    if (!/^\[(not-found|bad-request|forbidden)\]/.test(e instanceof Error ? e.message : '')) timer = setTimeout(() => void poll(gen, id, stream, from), IDLE_POLL_MS);
    return;
  }
  if (gen !== generation) return;
  const added = u.text.length > 0 ? appendFollowText(text, u.text) : 0;
  const { text: _text, ...last } = u;
  useFollow.setState((s) => ({ last, error: null, textVersion: u.text.length > 0 || u.pending !== s.last?.pending ? s.textVersion + 1 : s.textVersion, unseen: s.autoscroll ? 0 : s.unseen + added }));
  if (u.state === 'sealed' && u.sealed) return openSealed(gen, u.sealed);
  if (u.state === 'failed') return;
  const wait = u.next < u.textBytes ? 0 : u.state === 'interrupted' ? IDLE_POLL_MS : POLL_MS;
  timer = setTimeout(() => void poll(gen, id, stream, u.next), wait);
}

/** The capture was sealed: the sealed record opens in the workspace in its place. */
async function openSealed(gen: number, sealed: NonNullable<FollowUpdate['sealed']>): Promise<void> {
  await loadVault();
  if (gen !== generation) return;
  const record = useArtifact.getState().records.find((r) => r.id === sealed.recordId);
  const artifact = record?.artifacts.find((a) => a.ref === sealed.ref) ?? record?.artifacts[0];
  if (!record || !artifact) {
    useFollow.setState({ error: 'The capture was sealed, but its record is not in the vault list; Refresh the vault.' });
    return;
  }
  stop();
  generation++;
  text = emptyFollowText();
  // A grant on the followed stream goes on over the sealed artifact: the workspace adopts it.
  resetFollowHex(null);
  useFollow.setState({ ...initialFollow() });
  await openArtifact(record, artifact);
  if (useArtifact.getState().record?.id === record.id) notify(sealed.interrupted ? 'The capture was interrupted; its record was sealed with what it had stored.' : 'The capture ended; its sealed record is open.');
}

/** Follows another stream of the open capture (its text starts over from byte 0). */
export function switchStream(stream: string): void {
  const open = useFollow.getState().open;
  if (open && open.streams.includes(stream) && stream !== useFollow.getState().stream) openRunning(open, stream);
}

/** Autoscroll: off when the user scrolls up, on again when they reach the end. */
export function setAutoscroll(on: boolean): void {
  useFollow.setState((s) => (s.autoscroll === on ? s : { autoscroll: on, unseen: on ? 0 : s.unseen }));
}

/** Runs the screen engine on what the stream has received so far, and follows the run. */
export async function runFollowScreen(cols: number, rows: number): Promise<void> {
  const { open, stream } = useFollow.getState();
  if (!open) return;
  const gen = generation;
  useFollow.setState({ screen: null, screenError: null });
  try {
    let st = await bridge().getRunningScreen(open.id, stream, { cols, rows }, null);
    const upTo = st.totalBytes;
    for (;;) {
      if (gen !== generation) return;
      useFollow.setState({ screen: st });
      if (st.state !== 'running') {
        if (st.state !== 'done') useFollow.setState({ screenError: st.error ?? `the reconstruction ${st.state}` });
        return;
      }
      await new Promise((r) => setTimeout(r, SCREEN_POLL_MS));
      st = await bridge().getRunningScreen(open.id, stream, { cols, rows }, upTo);
    }
  } catch (e) {
    if (gen === generation) useFollow.setState({ screenError: errorText(e) });
  }
}
