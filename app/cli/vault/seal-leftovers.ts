import type { Writable } from 'node:stream';
import { sealInterrupted } from '../../capture/interrupted';
import { terminalSafeLine } from '../../terminal/terminal-safe';
import type { Vault } from '../../vault';
import { writeOwnLines } from '../command';

/**
 * Seals the running records of captures whose Airlock is gone (killed, power lost) as records
 * marked interrupted, each with its audit entry (app/capture/interrupted.ts), and says so on
 * stderr. Every vault command runs it first, so `list`, `show` and `verify` never meet a dead
 * running record. A vault this user cannot write is left as it is, with a warning.
 */
export async function sealLeftovers(vault: Vault, io: { readonly stderr: Writable }): Promise<void> {
  try {
    const { sealed } = await sealInterrupted(vault);
    for (const id of sealed) {
      writeOwnLines(io.stderr, `note: capture ${terminalSafeLine(id)} was interrupted (the Airlock process running it ended first); sealed as a record marked interrupted, with what it had stored`, 'note:+ ');
    }
  } catch (err) {
    writeOwnLines(io.stderr, `warning: interrupted captures could not be sealed: ${terminalSafeLine(err instanceof Error ? err.message : String(err))}`, 'warning:+ ');
  }
}
