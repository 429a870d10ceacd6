// Traces: the list, newest first, with a status filter and one search box that finds a trace by its id
// (whole or its first digits) or by the text of its task or summary.
import type { TracePageWire, TraceRowWire, TraceStatus } from '@agent-reach/sdk/protocol';
import { useState } from 'preact/hooks';
import { formatAgo, formatMs, shorten } from '../../../shared/format.js';
import { getJson } from '../api.js';
import { Badge, type Column, ErrorBox, PageTitle, Table, TraceIdLink, useLoad } from '../bits.js';

const STATUSES: Array<TraceStatus | ''> = ['', 'running', 'ok', 'degraded', 'failed', 'aborted'];

const COLUMNS: Column<TraceRowWire>[] = [
  { header: 'Started', cell: (t) => <span title={t.started_at}>{formatAgo(t.started_at)}</span> },
  { header: 'Status', cell: (t) => <Badge state={t.status} /> },
  { header: 'Task', cell: (t) => shorten(t.task, 90), class: 'wide' },
  { header: 'Duration', cell: (t) => formatMs(t.duration_ms), class: 'num' },
  { header: 'Trace', cell: (t) => <TraceIdLink id={t.id} /> },
];

/** The Traces page; `?q=` in the route fills the search box. */
export function TracesPage({ query }: { query: URLSearchParams }) {
  const [status, setStatus] = useState('');
  const [text, setText] = useState(query.get('q') ?? '');
  const [q, setQ] = useState(query.get('q') ?? '');
  const [rows, setRows] = useState<TraceRowWire[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const pageOf = (cursor?: string) => {
    const params = new URLSearchParams({ limit: '50' });
    if (status) params.set('status', status);
    if (q.trim()) params.set('q', q.trim());
    if (cursor) params.set('cursor', cursor);
    return getJson<TracePageWire>(`/api/traces?${params}`);
  };
  const [loaded, reload] = useLoad(async () => {
    const page = await pageOf();
    setRows(page.items);
    setNext(page.next_cursor);
    return page;
  }, [status, q]);
  const more = async () => {
    if (!next) return;
    try {
      const page = await pageOf(next);
      setRows((r) => r.concat(page.items));
      setNext(page.next_cursor);
    } catch (error) {
      setMoreError(error);
    }
  };
  return (
    <>
      <PageTitle>Traces</PageTitle>
      <section class="card" aria-label="traces">
        <form
          class="filters"
          onSubmit={(e) => {
            e.preventDefault();
            if (text === q) reload();
            else setQ(text);
          }}
        >
          <label for="traces-status">Status</label>
          <select
            id="traces-status"
            name="status"
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value)}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'any status'}
              </option>
            ))}
          </select>
          <label for="traces-q">Search traces by id or text</label>
          <input
            id="traces-q"
            name="q"
            type="search"
            maxLength={200}
            placeholder="trace id, task or summary text"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <div class="trace-list">
          {loaded.status === 'loading' && rows.length === 0 ? <p class="empty">Loading…</p> : null}
          {loaded.status === 'error' ? <ErrorBox error={loaded.error} /> : null}
          {loaded.status === 'ok' ? (
            <Table
              label="traces"
              columns={COLUMNS}
              rows={rows}
              empty="No traces match."
              rowKey={(t) => t.id}
            />
          ) : null}
        </div>
        {moreError ? <ErrorBox error={moreError} /> : null}
        {next ? (
          <div class="more">
            <button type="button" onClick={more}>
              Load more
            </button>
          </div>
        ) : null}
      </section>
    </>
  );
}
