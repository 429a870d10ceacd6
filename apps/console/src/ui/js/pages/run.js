// Run: start a task, then watch its DAG fill in over SSE, the event log, and the deliverable.
import { getJson, postJson, seg } from '../api.js';
import { renderDag } from '../dag-view.js';
import { badge, errorBox, fields, h, replace, routeLink } from '../dom.js';
import { eventRow } from '../event-log.js';
import { formatMs } from '../format.js';
import { applyEvent, createRunState, stateFromDetail } from '../run-state.js';
import { jaegerLink, traceIdLink } from '../trace-links.js';

function startForm() {
  const task = h('textarea', {
    name: 'task',
    rows: '4',
    required: true,
    maxlength: '20000',
    placeholder:
      'Describe the task, e.g. "Design a home network agent discovery system: risks, evidence, plan."',
  });
  const provider = h('input', { name: 'provider', placeholder: 'provider (optional)', maxlength: '80' });
  const button = h('button', { type: 'submit' }, 'Start run');
  const problem = h('div', { class: 'form-problem' });
  const form = h(
    'form',
    {
      class: 'start-form',
      onsubmit: async (e) => {
        e.preventDefault();
        const text = task.value.trim();
        if (text === '') return;
        button.disabled = true;
        replace(problem);
        try {
          const body = { text, ...(provider.value.trim() ? { provider: provider.value.trim() } : {}) };
          const started = await postJson('/api/start', body);
          location.hash = `#/run/${seg(started.trace_id)}`;
        } catch (error) {
          replace(problem, errorBox(error));
        } finally {
          button.disabled = false;
        }
      },
    },
    h('label', {}, 'Task', task),
    h('div', { class: 'form-row' }, provider, button),
    problem,
  );
  return form;
}

/** Follows one run over SSE; returns the cleanup that closes the stream. */
function follow(host, traceId, ctx) {
  let state = createRunState(traceId);
  const head = h('div', { class: 'run-head' });
  const dag = h('div', { class: 'dag-host' });
  const log = h('ol', { class: 'event-log' });
  const note = h('div', { class: 'stream-note' });
  const deliverable = h(
    'div',
    { class: 'deliverable' },
    h('p', { class: 'empty' }, 'The deliverable appears when the run ends.'),
  );
  replace(
    host,
    h('section', { class: 'card' }, head, note, h('h2', {}, 'DAG'), dag),
    h(
      'div',
      { class: 'split' },
      h('section', { class: 'card' }, h('h2', {}, 'Events'), log),
      h('section', { class: 'card' }, h('h2', {}, 'Deliverable'), deliverable),
    ),
  );

  const render = () => {
    replace(
      head,
      h('h2', {}, 'Run ', badge(state.status)),
      fields([
        ['trace', traceIdLink(traceId)],
        ['task', state.task ?? '…'],
        ['duration', state.durationMs !== null ? formatMs(state.durationMs) : 'running…'],
        state.available ? ['available', state.available.join(', ') || '(none)'] : null,
        state.degraded ? ['plan', 'fallback plan (the planner failed)'] : null,
      ]),
      h(
        'div',
        { class: 'actions' },
        routeLink('Open trace', 'traces', traceId),
        jaegerLink(ctx.settings, traceId),
      ),
    );
    replace(dag, renderDag(state));
  };
  render();

  const finish = async () => {
    try {
      const detail = await getJson(`/api/traces/${seg(traceId)}`);
      const events = state.events;
      state = stateFromDetail(detail);
      state.events = events;
      const summary = detail.trace.summary;
      replace(
        deliverable,
        summary
          ? h('pre', { class: 'deliverable-text' }, summary)
          : h('p', { class: 'empty' }, 'No deliverable.'),
        detail.trace.error ? errorBox({ code: 'RUN', message: detail.trace.error }) : null,
      );
    } catch (error) {
      replace(deliverable, errorBox(error));
    }
    render();
  };

  const source = new EventSource(`/api/stream/${seg(traceId)}`);
  source.onmessage = (m) => {
    const event = JSON.parse(m.data);
    if (!applyEvent(state, event)) return;
    log.append(eventRow(event));
    log.scrollTop = log.scrollHeight;
    render();
  };
  source.addEventListener('done', () => {
    source.close();
    replace(note);
    void finish();
  });
  source.addEventListener('stream_timeout', () => {
    source.close();
    replace(
      note,
      h(
        'p',
        { class: 'warning' },
        'No event for a long time: the stream was closed. Reload to follow again.',
      ),
    );
  });
  source.onerror = async () => {
    if (source.readyState !== EventSource.CLOSED) {
      replace(note, h('p', { class: 'warning' }, 'Connection lost, reconnecting (no event will be missed)…'));
      return;
    }
    // The stream was refused (e.g. no such trace): show the API's reason.
    try {
      await getJson(`/api/traces/${seg(traceId)}`);
      replace(note, errorBox({ code: 'STREAM', message: 'the event stream could not be opened' }));
    } catch (error) {
      replace(note, errorBox(error));
    }
  };
  source.onopen = () => replace(note);
  // Running nodes show a live duration.
  const ticker = setInterval(() => {
    if (state.status === 'running') replace(dag, renderDag(state));
  }, 1000);
  return () => {
    source.close();
    clearInterval(ticker);
  };
}

/** Mounts the Run page; `params[0]` is a trace id to follow. */
export function mount(root, params, ctx) {
  const live = h('div', { class: 'run-live' });
  replace(
    root,
    h('section', { class: 'card' }, h('h2', {}, 'Start a run'), startForm()),
    live,
    params[0]
      ? null
      : h('p', { class: 'hint' }, 'Recent runs are under ', routeLink('Traces', 'traces'), '.'),
  );
  return params[0] ? follow(live, params[0], ctx) : () => {};
}
