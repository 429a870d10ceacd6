// The hash router: `#/<page>/<param>…?<query>`.

/** A parsed hash route. */
export interface Route {
  /** The first segment (`run` when the hash is empty). */
  page: string;
  /** The decoded segments after it. */
  params: string[];
  query: URLSearchParams;
}

/** Parses `location.hash`. */
export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const [page = 'run', ...params] = parts;
  return { page, params, query: new URLSearchParams(search) };
}

/** The href of a console page; segments are encoded. */
export const href = (...segments: string[]): string =>
  `#/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
