/// <reference lib="dom" />
// The authorization prompt: shipped with the app, loaded only into main's prompt window, talking
// only to `window.airlockPrompt` (its own preload). Every value is set with textContent: nothing
// from the request is ever parsed as HTML.
import type { AirlockPromptBridge } from '../../shared/bridge/contract';
import type { PromptView } from '../../shared/bridge/types';
import { binarySize } from '../../shared/size';

declare global {
  interface Window {
    airlockPrompt?: AirlockPromptBridge;
  }
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function text(id: string, value: string): void {
  $(id).textContent = value;
}

export function formatBytes(n: number): string {
  const { value, unit } = binarySize(n);
  return unit === 'B' ? `${n} bytes` : `${value.toFixed(value < 10 ? 2 : 1)} ${unit} (${n.toLocaleString('en-US')} bytes)`;
}

function show(view: PromptView): void {
  const expected = view.running ? showRunning(view, view.running) : view.artifact ? showArtifact(view, view.artifact) : null;
  if (expected === null) {
    text('loading', 'No request to answer: it names nothing to approve.');
    return;
  }
  text('requester', view.requester);
  showClaim(view.requestedReason, view.requestedReasonTruncated, view.requestedReasonChars);
  if (view.earlierRefusals > 0) {
    $('repeats').hidden = false;
    text('repeats', `This window asked for this artifact before: ${view.earlierRefusals} earlier prompt${view.earlierRefusals === 1 ? ' was' : 's were'} denied or closed without an answer.`);
  }
  text('lifetime', `${Math.round(view.expiresInMs / 60_000)} minutes, for that window only; revocable; ends when the window closes${view.running ? ' or the capture is interrupted' : ''}`);
  if (!view.running) text('confirm-label', `Type the first ${view.confirmDigits} hex digits of the digest`);
  if (view.extract) showExtract(view);
  // The reviewer states their own reason (the requester's is shown above, not pre-filled).
  $('loading').hidden = true;
  $('details').hidden = false;
  $('answer').hidden = false;
  $('prompt').setAttribute('aria-busy', 'false');
  const update = (): void => {
    const ok = $<HTMLInputElement>('confirm').value.trim().toLowerCase() === expected && $<HTMLTextAreaElement>('reason').value.trim().length > 0;
    $<HTMLButtonElement>('approve').disabled = !ok;
  };
  $('confirm').addEventListener('input', update);
  $('reason').addEventListener('input', update);
  $('reason').focus();
}

/** A sealed artifact: its digest (the human types its first digits), size, stream and removals. Returns what to type. */
function showArtifact(view: PromptView, artifact: NonNullable<PromptView['artifact']>): string {
  const digest = $('digest');
  const head = document.createElement('span');
  head.className = 'head';
  head.textContent = artifact.sha256.slice(0, view.confirmDigits);
  digest.replaceChildren(head, document.createTextNode(artifact.sha256.slice(view.confirmDigits)));
  text('size', formatBytes(artifact.size));
  text('stream', artifact.stream);
  text('source', `${view.record.source}: ${view.record.title}`);
  text('captured', `${view.record.createdAt} (record ${view.record.id})`);
  text('cwd', view.record.cwd ?? '—');
  text('range', view.range ? `bytes ${view.range[0]}–${view.range[1]} (${formatBytes(view.range[1] - view.range[0])})` : 'the whole artifact');
  const r = artifact.removal;
  const top = r.top.map((t) => `${t.key} ×${t.count}`).join('; ');
  text('removal', `${r.removedSpans} spans, ${r.removedBytes} bytes${top ? ` — ${top}` : ''}${r.truncated ? ' (input was truncated)' : ''}${r.ambiguous ? `; ${r.ambiguous} ambiguous` : ''}${r.withheldToEnd ? '; text withheld to end of input' : ''}`);
  return artifact.sha256.slice(0, view.confirmDigits);
}

/**
 * One stream of a running capture: there is no digest yet (sealing fixes it), so the human types
 * the last digits of the record id, shown with them marked. Returns what to type.
 */
function showRunning(view: PromptView, running: NonNullable<PromptView['running']>): string {
  document.title = 'Airlock — authorize raw access to a running capture';
  text('title', 'Raw byte access to a running capture requested');
  text('lede', 'A viewer window asks to show the raw bytes of one stream of a capture that is still running (as hex), as they arrive. They may hold terminal control sequences and hostile payloads. Approve only for a reason you can state.');
  text('digest-label', 'Record id');
  const cut = running.recordId.length - view.confirmDigits;
  const head = document.createElement('span');
  head.className = 'head';
  head.textContent = running.recordId.slice(cut);
  $('digest').replaceChildren(document.createTextNode(running.recordId.slice(0, cut)), head);
  text('size-label', 'Received so far');
  text('size', `${formatBytes(running.bytesSoFar)}, still growing`);
  text('stream', running.stream);
  text('source', `capture: ${running.title}`);
  text('captured-label', 'Started');
  text('captured', `${running.startedAt} (running; no digest until it is sealed)`);
  text('cwd', running.cwd ?? '—');
  text('range-label', 'Covers');
  text('range', `the ${running.stream} bytes as they arrive until the capture ends; once it is sealed, its sealed ${running.stream} artifact (the same bytes, under their digest)`);
  $('removal-label').hidden = true;
  $('removal').hidden = true;
  text('confirm-label', `Type the last ${view.confirmDigits} hex digits of the record id`);
  return running.recordId.slice(cut).toLowerCase();
}

/**
 * The requester's words, apart from everything Airlock says: in their own dashed box, labelled as
 * untrusted, quoted, in another face (main escaped every control, bidi and invisible character and
 * cut them to length; textContent keeps them text).
 */
function showClaim(reason: string, truncated: boolean, chars: number): void {
  if (!reason) return;
  $('claim').hidden = false;
  text('claim-text', reason);
  if (truncated) {
    $('claim-cut').hidden = false;
    text('claim-cut', `Truncated: ${chars.toLocaleString('en-US')} characters were given; only the first ones are shown above.`);
  }
}

/** A review-queue request: what the approval releases (an extract), to whom, until when. */
function showExtract(view: PromptView): void {
  const x = view.extract!;
  document.title = 'Airlock — approve an extract';
  text('title', 'Extract of raw bytes requested');
  text('lede', 'An agent asks for a bounded extract of a restricted artifact. Approving computes it now from the raw file and releases it to the requester: hex notation, a digest, or sanitized text, never the bytes themselves. Approve only for a reason you can state.');
  text('range-label', 'Extract');
  const what = x.kind === 'hex-range' ? 'hex dump' : x.kind === 'digest' ? `sha256${x.expect ? ` compared with ${x.expect.slice(0, 16)}…` : ''}` : `sanitized text${x.search !== null ? `, searched for “${x.search}”` : ''}`;
  text('range', `${what} of ${x.range ? `bytes ${x.range[0]}–${x.range[1]} (${formatBytes(x.range[1] - x.range[0])})` : 'the whole artifact'}`);
  text('requester', `${x.requester} (request ${x.id})`);
  text('lifetime-label', 'Request expires');
  text('lifetime', `${x.expiresAt} (in ${view.expiresInMs >= 7_200_000 ? `${Math.round(view.expiresInMs / 3_600_000)} hours` : `${Math.max(0, Math.round(view.expiresInMs / 60_000))} minutes`}); the decision and the extract's digest are audited`);
  $<HTMLTextAreaElement>('reason').placeholder = 'Why may the requester have this extract? (recorded in the audit log)';
}

async function answer(bridge: AirlockPromptBridge, decision: 'approve' | 'deny'): Promise<void> {
  const reason = $<HTMLTextAreaElement>('reason').value;
  const confirm = $<HTMLInputElement>('confirm').value;
  text('error', '');
  for (const b of ['approve', 'deny']) $<HTMLButtonElement>(b).disabled = true;
  try {
    await bridge.answerPrompt({ decision, reason, confirm });
    $('answer').hidden = true;
    const done = $('done');
    done.hidden = false;
    const extract = document.title.includes('extract');
    done.textContent = decision === 'approve'
      ? extract ? 'Approved. The extract was computed and recorded in the audit log; this window closes.' : 'Approved. The grant is recorded in the audit log; this window closes.'
      : 'Denied. No raw byte was released; this window closes.';
  } catch (err) {
    text('error', err instanceof Error ? err.message : String(err));
    $<HTMLButtonElement>('deny').disabled = false;
    $('confirm').dispatchEvent(new Event('input'));
  }
}

async function main(): Promise<void> {
  const bridge = window.airlockPrompt;
  if (!bridge) {
    text('loading', 'This page works only inside Airlock’s prompt window.');
    return;
  }
  try {
    show(await bridge.getPrompt());
  } catch (err) {
    text('loading', `No request to answer: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  $('answer').addEventListener('submit', (e) => {
    e.preventDefault();
    void answer(bridge, 'approve');
  });
  $('deny').addEventListener('click', () => void answer(bridge, 'deny'));
}

void main();
