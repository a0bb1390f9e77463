import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSP, resolveSegments, serveSchemeRequest } from '../../../app/main/scheme';

describe('airlock: scheme handler', () => {
  let dir: string;
  let roots: { app: string; prompt: string };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'airlock-scheme-'));
    roots = { app: join(dir, 'renderer'), prompt: join(dir, 'prompt') };
    await mkdir(join(roots.app, 'assets'), { recursive: true });
    await mkdir(roots.prompt);
    await writeFile(join(roots.app, 'index.html'), '<!doctype html>');
    await writeFile(join(roots.app, 'assets', 'main-1.js'), 'void 0');
    await writeFile(join(roots.app, 'assets', 'x.css'), 'a{}');
    await writeFile(join(roots.app, 'assets', 'notes.exe'), 'MZ');
    await writeFile(join(roots.prompt, 'index.html'), '<!doctype html><p>prompt');
    await writeFile(join(dir, 'secret.js'), 'secret');
    await symlink(join(dir, 'secret.js'), join(roots.app, 'assets', 'escape.js'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves the two builds with the CSP, nosniff and the right MIME types', async () => {
    const r = await serveSchemeRequest('GET', 'airlock://app/index.html', roots);
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(r.headers['Content-Security-Policy']).toBe(CSP);
    expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
    expect((await serveSchemeRequest('GET', 'airlock://app/', roots)).status).toBe(200);
    expect((await serveSchemeRequest('GET', 'airlock://app/assets/main-1.js', roots)).headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect((await serveSchemeRequest('GET', 'airlock://app/assets/x.css', roots)).headers['Content-Type']).toBe('text/css; charset=utf-8');
    expect((await serveSchemeRequest('GET', 'airlock://prompt/index.html', roots)).body?.toString()).toContain('prompt');
  });

  it('the CSP is the strict one', () => {
    expect(CSP).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  });

  it('GET only', async () => {
    for (const m of ['POST', 'PUT', 'HEAD', 'OPTIONS', 'DELETE']) {
      const r = await serveSchemeRequest(m, 'airlock://app/index.html', roots);
      expect(r.status).toBe(405);
      expect(r.body).toBeNull();
    }
  });

  it('no traversal, no symlink escape, no unknown host or type', async () => {
    const bad = [
      'airlock://app/../secret.js', 'airlock://app/%2e%2e/secret.js', 'airlock://app/assets/%2e%2e%2f..%2fsecret.js', 'airlock://app/assets%5c..%5c..%5csecret.js',
      'airlock://app/assets/escape.js', 'airlock://app/assets/notes.exe', 'airlock://evil/index.html', 'airlock://app/assets/', 'airlock://app/a%00.js',
      'file:///etc/passwd', 'airlock://user:pw@app/index.html', 'airlock://app:8080/index.html', 'airlock://app/C:%5cwindows.js',
    ];
    for (const url of bad) {
      const r = await serveSchemeRequest('GET', url, roots);
      expect(r.status, url).toBeGreaterThanOrEqual(400);
      expect(r.body, url).toBeNull();
    }
    expect(resolveSegments('/a/%2e%2e/b.js')).toBeNull();
    expect(resolveSegments('/a/b.js')).toEqual(['a', 'b.js']);
  });
});
