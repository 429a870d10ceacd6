// Small shared pieces: badges, field lists, tables, links, error boxes, and the data hooks.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleSettings } from '../../shared/console-settings.js';
import { ApiError } from './api.js';
import { href } from './route.js';

/** A status badge; `state` picks the colour (`badge-<state>`). */
export function Badge({ state, text }: { state: string; text?: string }) {
  const safe = state.replace(/[^a-z_]/g, '');
  return <span class={`badge badge-${safe}`}>{text ?? state}</span>;
}

/** A `<dl>` of label/value pairs; null pairs are left out. */
export function Fields({ pairs }: { pairs: Array<[string, ComponentChildren] | null | false> }) {
  return (
    <dl class="fields">
      {pairs
        .filter((p): p is [string, ComponentChildren] => Boolean(p))
        .map(([label, value]) => (
          <div class="field" key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A column of a `Table`. */
export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  class?: string;
}

/** A table that scrolls inside its own box on a narrow screen (the page never does). */
export function Table<T>({
  columns,
  rows,
  empty = 'Nothing to show.',
  label,
  rowKey,
}: {
  columns: Column<T>[];
  rows: T[];
  empty?: string;
  label: string;
  rowKey?: (row: T, index: number) => string;
}) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section class="table-scroll" tabIndex={0} aria-label={label}>
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} class={c.class} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey ? rowKey(row, i) : String(i)}>
              {columns.map((c) => (
                <td key={c.header} class={c.class} data-label={c.header}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A link to a console page; segments are encoded. */
export function RouteLink({
  to,
  children,
  ...rest
}: { to: string[]; children: ComponentChildren } & JSX.HTMLAttributes<HTMLAnchorElement>) {
  return (
    <a href={href(...to)} {...rest}>
      {children}
    </a>
  );
}

/** The trace id as code, linking to its trace page. */
export function TraceIdLink({ id }: { id: string }) {
  return (
    <RouteLink to={['traces', id]}>
      <code>{id}</code>
    </RouteLink>
  );
}

/** The Jaeger link for a trace, or nothing when the console knows no Jaeger UI. */
export function JaegerLink({ settings, traceId }: { settings: ConsoleSettings; traceId: string }) {
  const base = settings.jaeger_url;
  if (typeof base !== 'string' || !/^https?:\/\//.test(base)) return null;
  return (
    <a
      class="jaeger-link"
      href={`${base}/trace/${encodeURIComponent(traceId)}`}
      target="_blank"
      rel="noopener noreferrer"
    >
      Open in Jaeger
    </a>
  );
}

/** An error box for an API failure. */
export function ErrorBox({ error }: { error: unknown }) {
  const code = error instanceof ApiError ? error.code : 'ERROR';
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      <strong>{code}</strong>: {message}
    </div>
  );
}

/** A page's title: the one `<h1>` of the page. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  return <h1 class="page-title">{children}</h1>;
}

/** A load's state. */
export type Loaded<T> =
  | { status: 'loading' }
  | { status: 'ok'; value: T }
  | { status: 'error'; error: unknown };

/**
 * Loads `load()` when `deps` change and again every `everyMs` (when given); the last answer stays shown
 * while the next one loads, and an answer that arrives after the page went away is dropped.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  everyMs?: number,
): [Loaded<T>, () => void] {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = () => {
    const mine = ++generation.current;
    loadRef.current().then(
      (value) => mine === generation.current && setState({ status: 'ok', value }),
      (error: unknown) => mine === generation.current && setState({ status: 'error', error }),
    );
  };
  useEffect(() => {
    setState({ status: 'loading' });
    run();
    const timer = everyMs ? setInterval(run, everyMs) : undefined;
    return () => {
      generation.current += 1;
      if (timer) clearInterval(timer);
    };
  }, deps);
  return [state, run];
}

/** Shows a load: "Loading…", its error, or `children(value)`. */
export function Show<T>({
  loaded,
  loading = 'Loading…',
  children,
}: {
  loaded: Loaded<T>;
  loading?: string;
  children: (value: T) => ComponentChildren;
}) {
  if (loaded.status === 'loading') return <p class="empty">{loading}</p>;
  if (loaded.status === 'error') return <ErrorBox error={loaded.error} />;
  return <>{children(loaded.value)}</>;
}
