/** A duration in milliseconds as `340ms`, `1.2s` or `3m05s`; `–` when unknown. */
export function formatMs(ms: number | null | undefined): string;
/** How long ago an ISO time was, as `4s ago`, `3m ago`, `2h ago` or the date; `never` for null. */
export function formatAgo(iso: string | null | undefined, now?: number): string;
/** A share from 0 to 1 as `93.5%`; `–` when unknown. */
export function formatPct(share: number | null | undefined): string;
/** An ISO time as local `HH:MM:SS.mmm`. */
export function formatClock(iso: string): string;
/** Text cut to `max` characters with `…`, newlines flattened. */
export function shorten(text: unknown, max: number): string;
/** An event's error (a string, or `{code, message}`) as one line. */
export function errorText(error: unknown): string;
