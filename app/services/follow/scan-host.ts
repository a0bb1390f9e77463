// The worker side of the running scans (scan.ts): one scan per running stream, fed from its raw
// temp file where the last request left off. The file is opened once (no symlink, a regular file)
// and kept open, so the scan goes on reading it after the sealing renamed it into the vault.
import { constants as fsc } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { IndexSanitizerOptions } from '../artifact/format';
import { RunningScan, type ScanSnapshot } from './scan';

/** Most bytes one request feeds (a stream far ahead is caught up over a few polls, main never waits long). */
export const MAX_ADVANCE_BYTES = 16 << 20;
const READ_BYTES = 1 << 20;

export type ScanRequest =
  | { readonly id: number; readonly type: 'advance'; readonly key: string; readonly path: string; readonly upTo: number; readonly options: IndexSanitizerOptions; readonly buckets: number }
  | { readonly id: number; readonly type: 'drop'; readonly key: string };

export type ScanReply = { readonly id: number; readonly ok: true; readonly snapshot: ScanSnapshot | null } | { readonly id: number; readonly ok: false; readonly message: string };

interface Scanning {
  readonly scan: RunningScan;
  fh: FileHandle | null;
}

export class ScanHost {
  private readonly scans = new Map<string, Scanning>();
  private readonly buf = Buffer.allocUnsafe(READ_BYTES);
  private queue: Promise<unknown> = Promise.resolve();
  /** Raw bytes read from the files so far, all scans together (each byte once: tests check it). */
  bytesRead = 0;

  /** Answers `m` once every request before it is answered (two feeds of one scan never overlap). */
  handle(m: ScanRequest): Promise<ScanReply> {
    const reply = this.queue.then(() => this.run(m));
    this.queue = reply;
    return reply;
  }

  private async run(m: ScanRequest): Promise<ScanReply> {
    try {
      if (m.type === 'drop') {
        const s = this.scans.get(m.key);
        this.scans.delete(m.key);
        await s?.fh?.close();
        return { id: m.id, ok: true, snapshot: null };
      }
      let s = this.scans.get(m.key);
      if (!s) {
        s = { scan: new RunningScan(m.options), fh: null };
        this.scans.set(m.key, s);
      }
      s.fh ??= await openRegular(m.path);
      if (s.fh) await this.feed(s, s.fh, Math.min(m.upTo, s.scan.scanned + MAX_ADVANCE_BYTES));
      return { id: m.id, ok: true, snapshot: s.scan.snapshot(m.buckets) };
    } catch (err) {
      return { id: m.id, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  }

  async close(): Promise<void> {
    for (const s of this.scans.values()) await s.fh?.close().catch(() => undefined);
    this.scans.clear();
  }

  private async feed(s: Scanning, fh: FileHandle, upTo: number): Promise<void> {
    while (s.scan.scanned < upTo) {
      const want = Math.min(READ_BYTES, upTo - s.scan.scanned);
      const { bytesRead } = await fh.read(this.buf, 0, want, s.scan.scanned);
      if (bytesRead === 0) return;
      this.bytesRead += bytesRead;
      s.scan.write(this.buf.subarray(0, bytesRead));
    }
  }
}

/** The file at `path` opened for reading, or null when there is none yet; a symlink or anything but a regular file is refused. */
async function openRegular(path: string): Promise<FileHandle | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    throw new Error('the raw temp file of a running capture is not a regular file');
  }
  return fh;
}

/** The worker thread's loop: requests from main's ScanClient, replies in order. */
export function serveScans(port: { on(event: 'message', fn: (m: ScanRequest) => void): unknown; postMessage(m: ScanReply): void }): void {
  const host = new ScanHost();
  port.on('message', (m) => void host.handle(m).then((r) => port.postMessage(r)));
}
