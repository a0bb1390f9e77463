// Bookmarks per artifact: `<vault>/bookmarks/<sha256>.json`, owner-only, replaced atomically.
// Writes of one artifact are serialized in this process, so two saves never lose each other.
import { randomBytes } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Bookmark } from '../../../shared/bridge/types';
import { MAX_NOTE_CHARS } from '../../../shared/bridge/contract';
import { ensurePrivateDir, isErrno, writeFileAtomic } from '../../files/fs-atomic';
import { BridgeError } from '../bridge/errors';

/** Most bookmarks one artifact keeps. */
export const MAX_BOOKMARKS = 10_000;
const BOOKMARK_ID = /^b-[0-9a-f]{16}$/;

interface BookmarkFile {
  readonly version: 1;
  readonly sha256: string;
  readonly bookmarks: Bookmark[];
}

export class BookmarkStore {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly vaultRoot: string) {}

  get dir(): string {
    return join(this.vaultRoot, 'bookmarks');
  }

  path(sha256: string): string {
    return join(this.dir, `${sha256}.json`);
  }

  async list(sha256: string): Promise<Bookmark[]> {
    await this.chains.get(sha256)?.catch(() => undefined);
    return this.read(sha256);
  }

  save(sha256: string, b: { offset: number; length: number; note: string }): Promise<Bookmark> {
    return this.serial(sha256, async () => {
      const list = await this.read(sha256);
      if (list.length >= MAX_BOOKMARKS) throw new BridgeError('too-large', `an artifact keeps at most ${MAX_BOOKMARKS} bookmarks`);
      if (typeof b.note !== 'string' || b.note.length > MAX_NOTE_CHARS) throw new BridgeError('bad-request', 'bad note');
      let id: string;
      do id = `b-${randomBytes(8).toString('hex')}`; while (list.some((x) => x.id === id));
      const mark: Bookmark = { id, offset: b.offset, length: b.length, note: b.note, createdAt: new Date().toISOString() };
      list.push(mark);
      list.sort((x, y) => x.offset - y.offset || x.createdAt.localeCompare(y.createdAt));
      await this.write(sha256, list);
      return mark;
    });
  }

  delete(sha256: string, id: string): Promise<void> {
    return this.serial(sha256, async () => {
      const list = await this.read(sha256);
      const kept = list.filter((x) => x.id !== id);
      if (kept.length === list.length) throw new BridgeError('not-found', `no bookmark ${id}`);
      await this.write(sha256, kept);
    });
  }

  private serial<T>(sha256: string, run: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(sha256) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(run);
    this.chains.set(sha256, next);
    void next.finally(() => {
      if (this.chains.get(sha256) === next) this.chains.delete(sha256);
    }).catch(() => undefined);
    return next;
  }

  private async read(sha256: string): Promise<Bookmark[]> {
    let text: string;
    try {
      text = await readFile(this.path(sha256), { encoding: 'utf8', flag: fsc.O_RDONLY | fsc.O_NOFOLLOW });
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return [];
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BridgeError('internal', 'the bookmark file of this artifact is not valid JSON');
    }
    const f = parsed as Partial<BookmarkFile>;
    if (f.version !== 1 || f.sha256 !== sha256 || !Array.isArray(f.bookmarks)) throw new BridgeError('internal', 'the bookmark file of this artifact is malformed');
    return f.bookmarks.filter(isBookmark).map((b) => ({ id: b.id, offset: b.offset, length: b.length, note: b.note, createdAt: b.createdAt }));
  }

  private async write(sha256: string, bookmarks: Bookmark[]): Promise<void> {
    await ensurePrivateDir(this.dir);
    const file: BookmarkFile = { version: 1, sha256, bookmarks };
    await writeFileAtomic(this.path(sha256), `${JSON.stringify(file, null, 1)}\n`);
  }
}

function isBookmark(b: unknown): b is Bookmark {
  const x = b as Record<string, unknown>;
  return typeof x === 'object' && x !== null && typeof x.id === 'string' && BOOKMARK_ID.test(x.id)
    && Number.isSafeInteger(x.offset) && (x.offset as number) >= 0 && Number.isSafeInteger(x.length) && (x.length as number) >= 0
    && typeof x.note === 'string' && typeof x.createdAt === 'string';
}
