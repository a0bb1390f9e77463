// "Open file…" for the preview (the harness stands in for Electron, which has a native dialog):
// a page of its own, outside the app's origin, where the human types or browses to a path. Only
// the path comes back; main's import service reads the file, as after Electron's dialog. The page
// has no window.airlock; its two bindings (list a directory, choose a path) exist on it alone.
import type { BrowserContext } from '@playwright/test';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

interface Entry {
  name: string;
  dir: boolean;
}

/** Names as the picker shows them: controls and invisible characters replaced (names are the user's own, but still shown inertly). */
function shown(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g, '?');
}

async function list(dir: string): Promise<{ dir: string; parent: string; entries: Entry[]; error: string | null }> {
  const abs = resolve(dir);
  try {
    const names = await readdir(abs, { withFileTypes: true });
    const entries = names
      .filter((d) => d.isDirectory() || d.isFile())
      .map((d) => ({ name: d.name, dir: d.isDirectory() }))
      .sort((a, b) => Number(b.dir) - Number(a.dir) || a.name.localeCompare(b.name))
      .slice(0, 2000);
    return { dir: abs, parent: dirname(abs), entries, error: null };
  } catch (err) {
    return { dir: abs, parent: dirname(abs), entries: [], error: `cannot list ${shown(abs)}: ${(err as { code?: string }).code ?? 'error'}` };
  }
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>Open a raw transcript</title>
<style>
  body { font: 13px system-ui, sans-serif; margin: 0; padding: 14px 16px; background: #151a20; color: #d7dde4; display: flex; flex-direction: column; height: 100vh; box-sizing: border-box; gap: 8px; }
  h1 { font-size: 15px; margin: 0; }
  form { display: flex; gap: 6px; }
  input { flex: 1; font: 12.5px monospace; padding: 4px 6px; background: #0f1216; color: inherit; border: 1px solid #2a333d; border-radius: 4px; }
  button { font: inherit; padding: 3px 10px; border-radius: 4px; border: 1px solid #2a333d; background: #1c232b; color: inherit; cursor: pointer; }
  button.primary { background: #4aa3ff; color: #0f1216; border-color: #4aa3ff; font-weight: 600; }
  ul { list-style: none; margin: 0; padding: 0; overflow: auto; flex: 1; border: 1px solid #2a333d; border-radius: 4px; }
  li button { display: block; width: 100%; text-align: left; border: none; border-radius: 0; background: none; font: 12.5px monospace; padding: 3px 8px; }
  li button:hover, li button:focus-visible { background: #173252; outline: none; }
  .error { color: #ff6b6b; min-height: 1.2em; }
  .hint { color: #9aa6b2; font-size: 11.5px; }
</style>
<h1>Open a raw transcript</h1>
<p class="hint">A file to import into the vault (.log, .bin, a script(1) typescript, an asciinema .cast). Type a path or choose below; ↑/↓ and Enter work in the list.</p>
<form id="f"><input id="path" aria-label="Path of the file to import" autocomplete="off" spellcheck="false"><button type="submit" class="primary">Open</button><button type="button" id="cancel">Cancel</button></form>
<p class="error" id="error" role="alert"></p>
<ul id="list" aria-label="Files"></ul>
<script>
  const input = document.getElementById('path');
  const listEl = document.getElementById('list');
  const error = document.getElementById('error');
  let current = '';
  async function show(dir) {
    const r = await window.__pickerList(dir);
    current = r.dir;
    error.textContent = r.error || '';
    listEl.replaceChildren();
    const item = (label, onChoose) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.addEventListener('click', onChoose);
      li.append(b);
      listEl.append(li);
    };
    if (r.parent !== r.dir) item('../', () => show(r.parent));
    for (const e of r.entries) item(e.shown + (e.dir ? '/' : ''), () => (e.dir ? show(r.dir + '/' + e.name) : (input.value = r.dir + '/' + e.name, input.focus())));
    if (!input.value || input.value.endsWith('/')) input.value = r.dir + '/';
  }
  listEl.addEventListener('keydown', (e) => {
    const all = [...listEl.querySelectorAll('button')];
    const at = all.indexOf(document.activeElement);
    if (e.key === 'ArrowDown') all[Math.min(all.length - 1, at + 1)]?.focus();
    else if (e.key === 'ArrowUp') all[Math.max(0, at - 1)]?.focus();
    else return;
    e.preventDefault();
  });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    const why = await window.__pickerDone(input.value);
    if (why === 'directory') await show(input.value);
    else if (why) error.textContent = why;
  });
  document.getElementById('cancel').addEventListener('click', () => window.__pickerDone(null));
  show(__START__);
  input.focus();
</script>`;

/**
 * Opens the picker in a new page of `context` starting at `start`; resolves with the chosen file's
 * absolute path, or null when the human cancelled or closed the page.
 */
export async function pickFile(context: BrowserContext, start: string): Promise<{ path: string } | null> {
  const page = await context.newPage();
  await page.setViewportSize({ width: 720, height: 560 });
  return new Promise<{ path: string } | null>((settle) => {
    let done = false;
    const finish = (v: { path: string } | null) => {
      if (done) return;
      done = true;
      settle(v);
      if (!page.isClosed()) void page.close().catch(() => undefined);
    };
    page.on('close', () => finish(null));
    void (async () => {
      await page.exposeFunction('__pickerList', async (dir: string) => {
        const r = await list(String(dir));
        return { ...r, entries: r.entries.map((e) => ({ ...e, shown: shown(e.name) })) };
      });
      await page.exposeFunction('__pickerDone', async (path: string | null) => {
        if (path === null) {
          finish(null);
          return null;
        }
        const abs = resolve(String(path));
        const st = await lstat(abs).catch(() => null);
        if (st?.isDirectory()) return 'directory';
        if (!st) return `no such file: ${shown(abs)}`;
        if (!st.isFile()) return `not a regular file: ${shown(abs)}`;
        finish({ path: abs });
        return null;
      });
      await page.setContent(PAGE.replace('__START__', JSON.stringify(join(resolve(start), '.').replace(/\/\.$/, ''))));
    })().catch(() => finish(null));
  });
}
