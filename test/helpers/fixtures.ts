import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * A copy of `test/fixtures/<name>` inside `dir`, for commands captured in the sandbox: the sandbox
 * shows the working directory, not this checkout, so a fixture run from here would not be found.
 */
export function fixturesIn(dir: string, name: string): string {
  const to = join(dir, `fixtures-${name}`);
  cpSync(resolve(__dirname, '../fixtures', name), to, { recursive: true });
  return to;
}
