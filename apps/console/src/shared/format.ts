// Display helpers shared by the browser UI and the `reach` CLI.

/** A duration in milliseconds as `340ms`, `1.2s` or `3m05s`; `–` when unknown. */
export function formatMs(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** How long ago an ISO time was, as `4s ago`, `3m ago`, `2h ago` or the date; `never` for null. */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return String(iso);
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** A share from 0 to 1 as `93.5%`; `–` when unknown. */
export function formatPct(share: number | null | undefined): string {
  if (typeof share !== 'number' || !Number.isFinite(share)) return '–';
  return `${(share * 100).toFixed(1)}%`;
}

/** An ISO time as local `HH:MM:SS.mmm`. */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Text cut to `max` characters with `…`, newlines flattened. */
export function shorten(text: unknown, max: number): string {
  const flat = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** An event's error (a string, or `{code, message}`) as one line. */
export function errorText(error: unknown): string {
  if (error === null || error === undefined) return '';
  if (typeof error === 'string') return error;
  if (typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown };
    if (typeof e.message === 'string')
      return typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message;
  }
  return JSON.stringify(error);
}
