import { useEffect } from 'react';
import { revokeRaw, tickGrant } from '../actions';
import { useGrants } from '../stores';

function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The strip every grant banner draws: what the grant covers, its reason, its countdown, Revoke. */
export function GrantStrip(props: {
  covers: string;
  reason: string;
  expiresAt: number;
  now: number;
  /** Called each second while shown (the store moves `now`). */
  onTick: () => void;
  onRevoke: () => void;
  /** Test ids `${testIds}banner` and `${testIds}expiry`. */
  testIds: string;
  revokeTestId?: string;
  className?: string;
}) {
  const { onTick } = props;
  useEffect(() => {
    const t = setInterval(onTick, 1000);
    return () => clearInterval(t);
  }, [onTick]);
  const left = props.expiresAt - props.now;
  return (
    <div className={`grant-banner${props.className ? ` ${props.className}` : ''}${left < 60_000 ? ' soon' : ''}`} data-testid={`${props.testIds}banner`} role="status" aria-live="polite">
      <span className="grant-dot" aria-hidden="true" />
      <strong>Raw access granted</strong>
      <span>{props.covers} · this window only</span>
      <span className="muted grant-reason">reason: {props.reason || '—'}</span>
      <span className="expiry" data-testid={`${props.testIds}expiry`}>expires in <span className="mono">{countdown(left)}</span></span>
      <button type="button" onClick={props.onRevoke} data-testid={props.revokeTestId}>Revoke</button>
    </div>
  );
}

const revoke = (): void => void revokeRaw();

/** Shown while raw bytes are visible: what the grant covers, when it ends, and Revoke. */
export function GrantBanner() {
  const grant = useGrants((g) => g.grant);
  const now = useGrants((g) => g.now);
  if (!grant) return null;
  const covers = grant.range ? `bytes ${grant.range[0]}–${grant.range[1]}` : 'whole artifact';
  return <GrantStrip covers={covers} reason={grant.reason} expiresAt={grant.expiresAt} now={now} onTick={tickGrant} onRevoke={revoke} testIds="grant-" />;
}
