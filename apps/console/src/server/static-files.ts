import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { Handler } from 'hono';

/** The file types the UI is made of; anything else is not served. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The UI loads only its own files and talks only to its own origin. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Serves the static UI from `root`: `/` is `index.html`, paths never leave `root`, and an
 * unknown path falls through to the next handler (the app's NOT_FOUND).
 */
export function staticFiles(root: string): Handler {
  const base = resolve(root);
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return next();
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = resolve(base, `.${path}`);
    const type = CONTENT_TYPES[extname(file)];
    if (type === undefined || !file.startsWith(base + sep) || path.includes('\0')) return next();
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      return next();
    }
    // No build step and no hashed names: the browser revalidates every file.
    const headers = { 'content-type': type, 'cache-control': 'no-cache', ...SECURITY_HEADERS };
    if (c.req.method === 'HEAD') return c.body(null, 200, headers);
    return c.body(new Uint8Array(bytes), 200, headers);
  };
}
