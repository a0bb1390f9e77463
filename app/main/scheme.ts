// The privileged `airlock:` scheme's request handler as plain Node (no electron import), so unit
// tests and the e2e harness run the very code Electron's `protocol.handle` calls.
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';

/** The app's own scheme: `airlock://app/…` (viewer) and `airlock://prompt/…` (prompt window). */
export const APP_SCHEME = 'airlock';
export const VIEWER_ORIGIN = `${APP_SCHEME}://app`;
export const PROMPT_ORIGIN = `${APP_SCHEME}://prompt`;
export const VIEWER_URL = `${VIEWER_ORIGIN}/index.html`;
export const PROMPT_URL = `${PROMPT_ORIGIN}/index.html`;

/**
 * Content Security Policy sent with every response (checklist #7: define a CSP): nothing remote,
 * no inline script, no eval, no plugins, no framing, no form posts, no connections.
 */
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers every response carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Types the app ships; anything else is not served. */
export const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/** Directory served for each host of the scheme. */
export interface SchemeRoots {
  readonly app: string;
  readonly prompt: string;
}

export interface SchemeResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer | null;
}

const SIZE_LIMIT = 64 << 20;

/**
 * Serves one request: GET only; host `app` or `prompt`; the path is percent-decoded per segment
 * and refused when a segment is empty, `.` or `..`, or holds `/`, `\`, NUL or a drive colon; the
 * resolved file must stay inside its root after symlinks are resolved; only known types.
 * Errors are bodiless.
 */
export async function serveSchemeRequest(method: string, url: string, roots: SchemeRoots): Promise<SchemeResponse> {
  const fail = (status: number): SchemeResponse => ({ status, headers: { ...SECURITY_HEADERS }, body: null });
  if (method !== 'GET') return { ...fail(405), headers: { ...SECURITY_HEADERS, Allow: 'GET' } };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return fail(400);
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.username || u.password || u.port) return fail(400);
  const root = u.host === 'app' ? roots.app : u.host === 'prompt' ? roots.prompt : null;
  if (!root) return fail(404);
  const segments = resolveSegments(u.pathname);
  if (!segments) return fail(400);
  const ext = extname(segments[segments.length - 1]).toLowerCase();
  const type = MIME[ext];
  if (!type) return fail(404);
  try {
    const realRoot = await realpath(root);
    const file = await realpath(join(realRoot, ...segments));
    if (!file.startsWith(realRoot + sep)) return fail(403);
    const st = await stat(file);
    if (!st.isFile() || st.size > SIZE_LIMIT) return fail(404);
    const body = await readFile(file);
    return { status: 200, headers: { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(body.length) }, body };
  } catch {
    return fail(404);
  }
}

/** Path segments of a URL path (`/` → index.html), or null when any is unsafe. */
export function resolveSegments(pathname: string): string[] | null {
  const raw = pathname.split('/').slice(1);
  if (raw.length === 1 && raw[0] === '') return ['index.html'];
  const out: string[] = [];
  for (const [i, seg] of raw.entries()) {
    if (seg === '' && i === raw.length - 1) return null; // a directory
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (s === '' || s === '.' || s === '..' || /[/\\\0:]/.test(s)) return null;
    out.push(s);
  }
  return out;
}
