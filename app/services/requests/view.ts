import type { RequestView } from '../../../shared/bridge/types';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import type { StoredRequest } from './record';

/**
 * A stored request as reviewers and requesters see it: every caller-given string (reason, note,
 * search term) escaped to one visible line, identities as `user@host via …`. The extract is
 * already inert text (hex notation, a digest, sanitized text).
 */
export function requestView(r: StoredRequest, title: string | null = null): RequestView {
  return {
    id: r.id,
    artifact: r.artifact,
    size: r.size,
    kind: r.kind,
    range: r.range ? [r.range[0], r.range[1]] : null,
    expect: r.expect,
    search: r.search === null ? null : terminalSafeLine(r.search),
    reason: terminalSafeLine(r.reason),
    requester: `${r.requester.user}@${r.requester.host} via ${r.requester.via}`,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    state: r.state,
    decidedAt: r.decision?.at ?? null,
    decidedBy: r.decision ? `${r.decision.by.user}@${r.decision.by.host} via ${r.decision.by.via}` : null,
    note: r.decision?.note ? terminalSafeLine(r.decision.note) : null,
    extract: r.extract,
    title,
  };
}

/**
 * What a requester is told of a request's state, in the order `request status --json` and the MCP
 * `request_status` tool both give it; each adds the note (framed its own way) and the extract.
 */
export function statusFields(r: StoredRequest) {
  return {
    id: r.id,
    state: r.state,
    kind: r.kind,
    artifact: r.artifact,
    range: r.range,
    created_at: r.created_at,
    expires_at: r.expires_at,
    decided_at: r.decision?.at ?? null,
    extract_pruned_at: r.extract_pruned_at ?? null,
  };
}
