/** Why the review queue refused something; CLI, MCP and bridge map these to their own errors. */
export type RequestErrorCode =
  /** the request itself is malformed: kind/flag mismatch, bad range, missing reason, bad hex */
  | 'bad-request'
  /** not a request id */
  | 'bad-id'
  /** no such artifact or request */
  | 'not-found'
  /** a range past a kind's bound, or the queue is full */
  | 'too-large'
  /** the request was already decided or expired */
  | 'conflict'
  /** a stored request failed validation, or its decision has no matching audit entry */
  | 'damaged'
  /** the raw bytes no longer hash to the artifact's digest */
  | 'mismatch';

/** A refusal with a one-line, printable message (ids, offsets and limits only; never bytes). */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    readonly code: RequestErrorCode,
    message: string,
  ) {
    super(message);
  }
}
