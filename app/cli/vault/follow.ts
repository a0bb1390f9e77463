import { setTimeout as sleep } from 'node:timers/promises';
import { LiveRows } from '../../capture/live-rows';
import { parseRunningRow } from '../../capture/running-record';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import { isRecordId, VaultError, type RunningHandle, type Vault } from '../../vault';
import { exitText } from '../../vault/display';
import { terminalColumns, type CliIo } from '../command';
import { sealLeftovers } from './seal-leftovers';

/** How often a quiet running record is looked at again. */
const POLL_MS = 100;
const EMPTY = new Uint8Array(0);

/**
 * `airlock vault follow ID|latest`: shows a running capture's sanitized text as it grows, with
 * the rows `airlock capture` shows (live-rows.ts), until it ends: sealed (its exit status is
 * said), failed, or interrupted (its Airlock is gone: it is sealed as such here). A capture that
 * has already ended is said to have, pointing at `vault show`. The running record's files are
 * read as untrusted: every row is parsed field by field and all text passes terminalSafe.
 */
export async function followRunning(vault: Vault, arg: string, io: CliIo): Promise<number> {
  await sealLeftovers(vault, io);
  const id = arg === 'latest' ? (await vault.runningIds()).at(-1) : arg;
  if (id === undefined) throw new VaultError('not-found', `no capture is running in vault ${terminalSafeLine(vault.root)}`);
  if (!isRecordId(id)) throw new VaultError('bad-id', `invalid record id '${terminalSafeLine(String(id).slice(0, 80))}' (follow takes a full id or latest)`);
  const handle = await vault.openRunning(id);
  if (!handle) return ended(vault, id, io);
  const columns = terminalColumns(io);
  const limit = typeof handle.meta.text_limit === 'number' && handle.meta.text_limit > 0 ? handle.meta.text_limit : Infinity;
  const rows = new LiveRows({
    columns: columns ?? Infinity,
    budget: limit,
    write: (text) => io.stdout.write(text),
    drained: () => new Promise((resolve) => io.stdout.once('drain', resolve)),
  });
  rows.begin(id, typeof handle.meta.command === 'string' ? handle.meta.command : '?');
  let end: 'sealed' | 'failed' | 'interrupted';
  try {
    end = await tail(handle, rows, limit);
  } finally {
    await handle.close();
  }
  await rows.endRows();
  if (end === 'interrupted') {
    rows.say(`airlock: the Airlock process running capture ${id} (pid ${handle.meta.owner.pid}) is gone: the capture was interrupted`);
    await sealLeftovers(vault, io);
  } else if (end === 'failed') rows.say(`airlock: capture ${id} failed: nothing was stored`);
  else {
    const record = await vault.getRecord(id).catch(() => null);
    rows.say(`airlock: capture ${id} ended: ${record ? exitText(record) : 'its record cannot be read'}; the record: airlock vault show ${id}`);
  }
  await rows.endRows();
  return 0;
}

/** Feeds the running record's log and text to `rows` until its last line, or until its owner is gone. */
async function tail(handle: RunningHandle, rows: LiveRows, limit: number): Promise<'sealed' | 'failed' | 'interrupted'> {
  for (let at = 0; ; ) {
    const read = await handle.readLog(at);
    for (const r of read.rows) {
      const row = parseRunningRow(r);
      if (row === null) continue;
      if (row[0] === 'c') {
        const [, , seqEnd, stream, offset, length, textOffset, textLength, tMs, outOffset, outLength, redraw] = row;
        const text = await handle.readText(stream, outOffset, Math.min(outLength, Math.max(0, limit - outOffset)));
        // Past the text limit the file holds no text: the rows say so, like capture's past --max-text.
        rows.chunk({ seq: seqEnd, stream, offset, length, textOffset, textLength, tMs, outOffset, outLength, text, redraw: redraw === 1, raw: EMPTY });
      } else if (row[0] === 'e') {
        rows.early({ seq: row[1], stream: row[2], outOffset: row[3], text: Buffer.from(row[4], 'utf8') });
      } else if (row[0] === 'end') {
        return row[1];
      }
      await rows.wait();
    }
    if (read.next === at) {
      // Nothing new: the capture is quiet, or its Airlock died without a last line.
      if (handle.owner() === 'gone') {
        // Its last lines may have reached the file just before it died.
        const last = await handle.readLog(at);
        if (last.rows.length === 0) return 'interrupted';
        continue;
      }
      await sleep(POLL_MS);
    }
    at = read.next;
  }
}

/** A capture that is not running (any more): said so, pointing at its record. */
async function ended(vault: Vault, id: string, io: CliIo): Promise<number> {
  if (!(await vault.recordExists(id))) throw new VaultError('not-found', `no running capture and no record ${id} in vault ${terminalSafeLine(vault.root)}`);
  const record = await vault.getRecord(id);
  io.stdout.write(`airlock: capture ${id} is not running: it ended (${exitText(record)}${record.state === 'interrupted' ? ', interrupted' : ''}); the record: airlock vault show ${id}\n`);
  return 0;
}
