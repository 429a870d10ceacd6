import { ReachError } from '@agent-reach/sdk/protocol';
import type { Handler } from 'hono';
import type { UiFiles } from './ui-bundle.js';

/** The UI loads only its own files and talks only to its own origin; no eval, no inline script or style. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Serves the built UI (`ui` resolves once the bundle is built): `/` is `index.html`, and an unknown
 * path falls through to the next handler (the app's NOT_FOUND).
 */
export function staticFiles(ui: Promise<UiFiles>): Handler {
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    let path = c.req.path;
    if (path.endsWith('/')) path += 'index.html';
    let files: UiFiles;
    try {
      files = await ui;
    } catch (error) {
      throw new ReachError('UNAVAILABLE', `the console UI could not be built: ${(error as Error).message}`);
    }
    const file = files.get(path);
    if (file === undefined) return next();
    // Built at start and not content-hashed: the browser revalidates every file.
    const headers = { 'content-type': file.contentType, 'cache-control': 'no-cache', ...SECURITY_HEADERS };
    if (c.req.method === 'HEAD') return c.body(null, 200, headers);
    return c.body(file.bytes as Uint8Array<ArrayBuffer>, 200, headers);
  };
}
