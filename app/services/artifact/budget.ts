// A query's time budget and cancel flag, checked at the points where a long query loops (span
// scans, search chunks). A query runs in a worker thread (query-client.ts), where main's watchdog
// ends it anyway past its budget; the checks let it stop cleanly first, and are what bounds a
// query run in this thread (the service's `inline` mode, tests).

/** Why a query stopped early. */
export class QueryStopped extends Error {
  override readonly name = 'QueryStopped';
  constructor(readonly why: 'cancelled' | 'timeout', message: string) {
    super(message);
  }
}

export class Budget {
  /**
   * `deadline`: wall-clock ms (Date.now(): worker threads share it, unlike performance.now()).
   * `cancel`: an Int32 flag another thread sets to 1 to stop the query.
   */
  constructor(
    readonly deadline: number,
    private readonly cancel: Int32Array | null = null,
    private readonly label = 'the query',
    private readonly signal: AbortSignal | null = null,
  ) {}

  /** A budget that never runs out (code paths that are bounded by other means). */
  static readonly none = new Budget(Number.POSITIVE_INFINITY);

  get stopped(): boolean {
    return (this.cancel !== null && Atomics.load(this.cancel, 0) !== 0) || this.signal?.aborted === true || Date.now() > this.deadline;
  }

  /** Throws QueryStopped when cancelled or past the deadline. */
  check(): void {
    if ((this.cancel !== null && Atomics.load(this.cancel, 0) !== 0) || this.signal?.aborted === true) throw new QueryStopped('cancelled', `${this.label} was cancelled`);
    if (Date.now() > this.deadline) throw new QueryStopped('timeout', `${this.label} ran past its time budget and was stopped`);
  }
}
