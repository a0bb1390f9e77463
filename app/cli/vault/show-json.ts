import { JsonReader, type JsonHandler } from '../../json/events';
import { terminalSafeJsonText } from '../../terminal/terminal-safe';
import type { Vault } from '../../vault';

/**
 * Re-writes a JSON document as it is read, in JSON.stringify's two-space layout with
 * terminalSafeJson's escapes. `lastMember` is added at the end of the top-level object unless the
 * document has a member of that name.
 */
class JsonRewriter implements JsonHandler {
  out = '';
  private readonly stack: { object: boolean; count: number }[] = [];
  private inKey = false;
  private key = '';
  private seenLast = false;

  constructor(private readonly lastMember: { name: string; value: unknown } | null) {}

  startObject(): void {
    this.prefix();
    this.out += '{';
    this.stack.push({ object: true, count: 0 });
  }

  endObject(): void {
    const last = this.lastMember;
    if (this.stack.length === 1 && last && !this.seenLast) {
      this.out += `${this.stack[0].count++ > 0 ? ',' : ''}${this.indent()}${terminalSafeJsonText(JSON.stringify(last.name))}: ${terminalSafeJsonText(JSON.stringify(last.value))}`;
    }
    this.close('}');
  }

  startArray(): void {
    this.prefix();
    this.out += '[';
    this.stack.push({ object: false, count: 0 });
  }

  endArray(): void {
    this.close(']');
  }

  startString(isKey: boolean): void {
    this.inKey = isKey;
    if (isKey) {
      const top = this.stack[this.stack.length - 1];
      this.out += `${top.count++ > 0 ? ',' : ''}${this.indent()}"`;
      this.key = '';
    } else {
      this.prefix();
      this.out += '"';
    }
  }

  stringPiece(text: string): void {
    if (this.inKey && this.key.length <= 64) this.key += text;
    this.out += terminalSafeJsonText(JSON.stringify(text).slice(1, -1));
  }

  endString(): void {
    this.out += '"';
    if (!this.inKey) return;
    this.inKey = false;
    if (this.stack.length === 1 && this.key === this.lastMember?.name) this.seenLast = true;
    this.out += ': ';
  }

  primitive(value: number | boolean | null): void {
    this.prefix();
    this.out += JSON.stringify(value);
  }

  private indent(): string {
    return `\n${'  '.repeat(this.stack.length)}`;
  }

  /** Before a value: in an array, its comma and line (an object member's went out with its name). */
  private prefix(): void {
    const top = this.stack[this.stack.length - 1];
    if (top && !top.object) this.out += `${top.count++ > 0 ? ',' : ''}${this.indent()}`;
  }

  private close(bracket: string): void {
    const top = this.stack.pop()!;
    this.out += top.count > 0 ? `${this.indent()}${bracket}` : bracket;
  }
}

/**
 * `vault show --json`: the record written out as it is read (see JsonRewriter), so a record of any
 * size is shown in bounded memory. The prune marker's `raw_pruned_at` is added as the last
 * member, as a record read whole has it.
 */
export async function writeRecordJson(vault: Vault, id: string, write: (s: string) => Promise<void>): Promise<void> {
  const { record } = await vault.scanRecord(id); // validates it, and says whether a marker applies
  const rewriter = new JsonRewriter(record.raw_pruned_at === undefined ? null : { name: 'raw_pruned_at', value: record.raw_pruned_at });
  const reader = new JsonReader(rewriter);
  await vault.readRecordBytes(id, async (chunk) => {
    reader.write(chunk);
    if (rewriter.out.length >= 64 * 1024) {
      const text = rewriter.out;
      rewriter.out = '';
      await write(text);
    }
  });
  reader.end();
  await write(`${rewriter.out}\n`);
}
