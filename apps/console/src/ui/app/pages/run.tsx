// Run: start a task, then follow its DAG over SSE with the span waterfall, the event log and the deliverable.
import type { StartedWire, TraceDetailWire, TraceEventWire } from '@agent-reach/sdk/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ConsoleSettings } from '../../../shared/console-settings.js';
import { formatMs } from '../../../shared/format.js';
import { getJson, postJson, seg } from '../api.js';
import { Badge, ErrorBox, Fields, JaegerLink, PageTitle, RouteLink, TraceIdLink } from '../bits.js';
import { Dag } from '../dag.js';
import { EventLog } from '../event-log.js';
import { applyEvent, createRunState, type RunState, stateFromDetail } from '../run-state.js';
import { Waterfall } from '../waterfall.js';

function StartForm() {
  const [task, setTask] = useState('');
  const [provider, setProvider] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const text = task.trim();
    if (text === '') return;
    setBusy(true);
    setProblem(null);
    try {
      const body = { text, ...(provider.trim() ? { provider: provider.trim() } : {}) };
      const started = await postJson<StartedWire>('/api/start', body);
      location.hash = `#/run/${seg(started.trace_id)}`;
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="start-form" onSubmit={submit}>
      <label for="run-task">Task</label>
      <textarea
        id="run-task"
        name="task"
        rows={4}
        required
        maxLength={20000}
        value={task}
        onInput={(e) => setTask(e.currentTarget.value)}
        placeholder='Describe the task, e.g. "Design a home network agent discovery system: risks, evidence, plan."'
      />
      <div class="form-row">
        <label class="inline" for="run-provider">
          Planner provider <span class="muted">(optional)</span>
        </label>
        <input
          id="run-provider"
          name="provider"
          maxLength={80}
          value={provider}
          onInput={(e) => setProvider(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Start run
        </button>
      </div>
      {problem ? <ErrorBox error={problem} /> : null}
    </form>
  );
}

type Note = { kind: 'none' } | { kind: 'warning'; text: string } | { kind: 'error'; error: unknown };

/** Follows one run over SSE (no event missed across reconnects: the stream resumes after the last seq). */
function Follow({ traceId, settings }: { traceId: string; settings: ConsoleSettings }) {
  const state = useRef<RunState>(createRunState(traceId));
  const [, setVersion] = useState(0);
  const [note, setNote] = useState<Note>({ kind: 'none' });
  const [detail, setDetail] = useState<TraceDetailWire | null>(null);
  const [detailError, setDetailError] = useState<unknown>(null);
  const [now, setNow] = useState(Date.now());
  const bump = () => setVersion((v) => v + 1);

  useEffect(() => {
    state.current = createRunState(traceId);
    setDetail(null);
    setDetailError(null);
    bump();
    let closed = false;
    const finish = async () => {
      try {
        const d = await getJson<TraceDetailWire>(`/api/traces/${seg(traceId)}`);
        if (closed) return;
        const events = state.current.events;
        state.current = stateFromDetail(d);
        state.current.events = events;
        setDetail(d);
      } catch (error) {
        if (!closed) setDetailError(error);
      }
      bump();
    };
    const source = new EventSource(`/api/stream/${seg(traceId)}`);
    source.onmessage = (m: MessageEvent<string>) => {
      if (applyEvent(state.current, JSON.parse(m.data) as TraceEventWire)) bump();
    };
    source.addEventListener('done', () => {
      source.close();
      setNote({ kind: 'none' });
      void finish();
    });
    source.addEventListener('stream_timeout', () => {
      source.close();
      setNote({
        kind: 'warning',
        text: 'No event for a long time: the stream was closed. Reload to follow again.',
      });
    });
    source.onerror = async () => {
      if (source.readyState !== EventSource.CLOSED) {
        setNote({ kind: 'warning', text: 'Connection lost, reconnecting (no event will be missed)…' });
        return;
      }
      // The stream was refused (e.g. no such trace): show the API's reason.
      try {
        await getJson(`/api/traces/${seg(traceId)}`);
        setNote({ kind: 'error', error: new Error('the event stream could not be opened') });
      } catch (error) {
        setNote({ kind: 'error', error });
      }
    };
    source.onopen = () => setNote({ kind: 'none' });
    // Running nodes and open spans show a live duration.
    const ticker = setInterval(() => {
      if (state.current.status === 'running') setNow(Date.now());
    }, 1000);
    return () => {
      closed = true;
      source.close();
      clearInterval(ticker);
    };
  }, [traceId]);

  const s = state.current;
  return (
    <>
      <section class="card run-head" aria-labelledby="run-title">
        <h2 id="run-title">
          Run <Badge state={s.status} />
        </h2>
        {note.kind === 'warning' ? <p class="warning">{note.text}</p> : null}
        {note.kind === 'error' ? <ErrorBox error={note.error} /> : null}
        <Fields
          pairs={[
            ['trace', <TraceIdLink id={traceId} key="t" />],
            ['task', s.task ?? '…'],
            ['duration', s.durationMs !== null ? formatMs(s.durationMs) : 'running…'],
            s.available ? ['available', s.available.join(', ') || '(none)'] : null,
            s.degraded ? ['plan', 'fallback plan (the planner failed)'] : null,
          ]}
        />
        <div class="actions">
          <RouteLink to={['traces', traceId]}>Open trace</RouteLink>
          <JaegerLink settings={settings} traceId={traceId} />
        </div>
      </section>
      <section class="card" aria-labelledby="dag-title">
        <h2 id="dag-title">DAG</h2>
        <Dag state={s} now={now} />
      </section>
      <section class="card" aria-labelledby="spans-title">
        <h2 id="spans-title">Spans</h2>
        <Waterfall state={s} now={now} />
      </section>
      <div class="split">
        <section class="card" aria-labelledby="events-title">
          <h2 id="events-title">Events</h2>
          <EventLog events={s.events} />
        </section>
        <section class="card deliverable" aria-labelledby="deliverable-title">
          <h2 id="deliverable-title">Deliverable</h2>
          {detail === null && detailError === null ? (
            <p class="empty">The deliverable appears when the run ends.</p>
          ) : null}
          {detail ? (
            detail.trace.summary ? (
              <pre class="deliverable-text">{detail.trace.summary}</pre>
            ) : (
              <p class="empty">No deliverable.</p>
            )
          ) : null}
          {detail?.trace.error ? <ErrorBox error={new Error(detail.trace.error)} /> : null}
          {detailError ? <ErrorBox error={detailError} /> : null}
        </section>
      </div>
    </>
  );
}

/** The Run page; `params[0]` is a trace id to follow. */
export function RunPage({ params, settings }: { params: string[]; settings: ConsoleSettings }) {
  const traceId = params[0];
  return (
    <>
      <PageTitle>Run</PageTitle>
      <section class="card" aria-labelledby="start-title">
        <h2 id="start-title">Start a run</h2>
        <StartForm />
      </section>
      {traceId ? (
        <Follow traceId={traceId} settings={settings} />
      ) : (
        <p class="hint">
          Recent runs are under <RouteLink to={['traces']}>Traces</RouteLink>.
        </p>
      )}
    </>
  );
}
