// Worker-thread entry: builds one index (build.ts) off main's event loop — main passes the options
// and a shared cancel flag; the worker posts progress at most every 50 ms, then `done` or `error` —
// or runs queries and searches (query-host.ts) for main's query client (query-client.ts), or the
// removal counts of running captures (follow/scan-host.ts).
// With `segments` > 1 it runs the segmented build (build-parallel.ts), starting this same script again
// for each later segment (`airlockArtifactSegment`).
import { parentPort, workerData } from 'node:worker_threads';
import { buildIndex, BuildCancelled, type BuildOptions, type BuildResult } from './build';
import { searchRange, type RangeSearch } from './lazy-search';
import { QueryHost, type QueryRequest } from './query-host';
import { trace } from './trace';
import { serveScans } from '../follow/scan-host';
import { buildIndexParallel, outcomeBuffers, runSegmentInput, type SegmentInput, type SegmentMessage } from './build-parallel';

export interface WorkerInput extends Omit<BuildOptions, 'onProgress' | 'shouldCancel'> {
  /** Int32 flag: main stores 1 to cancel. */
  readonly cancel: SharedArrayBuffer;
  /** This worker's own script (segmented builds start it again for each later segment). */
  readonly script?: string;
  /** Smallest file a segmented build cuts into segments (default build-parallel.ts MIN_PARALLEL_BYTES). */
  readonly minParallelBytes?: number;
}

export type WorkerMessage =
  | { readonly type: 'progress'; readonly bytesDone: number; readonly spans: number }
  | { readonly type: 'done'; readonly manifest: unknown; readonly splices?: readonly number[] }
  | { readonly type: 'cancelled' }
  | { readonly type: 'error'; readonly message: string };

/** Runs a build with the protocol above; `post` is parentPort.postMessage (or a test's stand-in). */
export async function runWorkerBuild(input: WorkerInput, post: (m: WorkerMessage) => void): Promise<void> {
  const flag = new Int32Array(input.cancel);
  let last = 0;
  try {
    const options: BuildOptions = {
      ...input,
      shouldCancel: () => Atomics.load(flag, 0) !== 0,
      onProgress: (bytesDone, spans) => {
        const now = performance.now();
        if (now - last < 50) return;
        last = now;
        post({ type: 'progress', bytesDone, spans });
      },
    };
    const result: BuildResult = (input.segments ?? 1) > 1 && input.script
      ? await buildIndexParallel(options, { script: input.script, cancel: input.cancel, minParallelBytes: input.minParallelBytes })
      : buildIndex({ ...options, segments: 1 });
    post({ type: 'done', manifest: result.manifest, splices: result.splices });
    trace?.('build done');
  } catch (err) {
    if (err instanceof BuildCancelled) post({ type: 'cancelled' });
    else post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

/** A later segment's run, for a segmented build's coordinator (build-parallel.ts). */
function runPart(input: SegmentInput, post: (m: SegmentMessage, transfer?: ArrayBuffer[]) => void): void {
  try {
    const outcome = runSegmentInput(input);
    // Its buffers move to the coordinator's thread (no copy).
    post({ type: 'segment', outcome }, outcomeBuffers(outcome));
    trace?.(`segment ${input.index} posted`);
  } catch (err) {
    if (err instanceof BuildCancelled) post({ type: 'cancelled' });
    else post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

if (parentPort && workerData) {
  const port = parentPort;
  const data = workerData as {
    airlockArtifactIndex?: boolean; airlockArtifactSegment?: SegmentInput; airlockTextSearch?: RangeSearch; airlockQueryHost?: boolean; airlockSearchThread?: boolean; airlockFollowScan?: boolean;
  };
  if (data.airlockArtifactIndex) void runWorkerBuild(workerData as WorkerInput, (m) => port.postMessage(m));
  // The removal counts of running captures, kept up to date as they grow (follow/scan-client.ts).
  else if (data.airlockFollowScan) serveScans(port);
  else if (data.airlockArtifactSegment) runPart(data.airlockArtifactSegment, (m, transfer) => port.postMessage(m, transfer));
  else if (data.airlockQueryHost) {
    // The query worker (queries from main, answered in any order: each carries its id), or a search
    // thread (one search at a time; main ends the thread to cancel it).
    const host = new QueryHost(!data.airlockSearchThread);
    port.on('message', (m: { type: 'query'; request: QueryRequest } | { type: 'drop'; sha: string }) => {
      if (m.type === 'drop') void host.drop(m.sha);
      else void host.run(m.request).then((reply) => port.postMessage(reply));
    });
  } else if (data.airlockTextSearch) {
    try {
      port.postMessage({ type: 'hits', result: searchRange(data.airlockTextSearch) });
    } catch (err) {
      port.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }
}
