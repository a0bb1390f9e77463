import { wrapLine } from '../../terminal/fit';
import { shellQuote } from '../../terminal/shell-quote';
import { terminalSafeJson, terminalSafeLine } from '../../terminal/terminal-safe';
import type { RunningHandle, Vault } from '../../vault';

/** A running capture as `vault list` shows it: what its meta.json says, and how far it got. */
export interface RunningRow {
  readonly id: string;
  readonly state: 'running';
  readonly started_at: string;
  readonly command: string | null;
  readonly argv: string[] | null;
  readonly cwd: string | null;
  /** The Airlock process running it, and whether it still runs ('other-host': cannot be seen from here). */
  readonly pid: number;
  readonly owner: 'alive' | 'gone' | 'other-host';
  /** Sanitized text stored so far, per stream. */
  readonly text_bytes: Record<string, number>;
}

/**
 * The vault's running captures (`running/<id>/`), oldest first, as rows. A directory whose
 * meta.json cannot be read is skipped here (`vault verify` names it).
 */
export async function runningRows(vault: Vault): Promise<RunningRow[]> {
  const rows: RunningRow[] = [];
  for (const id of await vault.runningIds()) {
    const handle = await vault.openRunning(id).catch(() => null);
    if (!handle) continue;
    try {
      rows.push(await rowOf(handle));
    } finally {
      await handle.close();
    }
  }
  return rows;
}

async function rowOf(h: RunningHandle): Promise<RunningRow> {
  const m = h.meta;
  const argv = Array.isArray(m.argv) && m.argv.every((a) => typeof a === 'string') ? (m.argv as string[]) : null;
  const text: Record<string, number> = {};
  for (const s of m.streams) text[s] = await h.textSize(s);
  return {
    id: h.id,
    state: 'running',
    started_at: m.started_at,
    command: typeof m.command === 'string' ? m.command : argv ? argv.map(shellQuote).join(' ') : null,
    argv,
    cwd: typeof m.cwd === 'string' ? m.cwd : null,
    pid: m.owner.pid,
    owner: h.owner(),
    text_bytes: text,
  };
}

/** The readable line of a running capture (cut to `columns` on a terminal). */
export function runningLine(row: RunningRow, columns: number): string {
  const text = Object.entries(row.text_bytes).map(([s, n]) => `${s} ${n} B`).join(', ');
  const who = row.owner === 'other-host' ? `on another host, pid ${row.pid}` : `pid ${row.pid}`;
  const command = terminalSafeLine((row.command ?? '?').slice(0, 200));
  const line = [row.id, terminalSafeLine(row.started_at), 'RUNNING', `${who}`, `text so far: ${text}`, command].join('  ');
  return wrapLine(line, columns, '    + ').map((r) => `${r}\n`).join('');
}

/** The JSON of a running capture's row (terminal-safe, indented for the list). */
export function runningJson(row: RunningRow): string {
  return terminalSafeJson(row, 2).replace(/^/gm, '  ');
}
