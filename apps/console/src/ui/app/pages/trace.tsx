// One trace: summary, DAG, span waterfall, nodes with their input context and output, the deliverable,
// every event; delete.
import type { DeletedWire, TraceDetailWire } from '@agent-reach/sdk/protocol';
import { useState } from 'preact/hooks';
import type { ConsoleSettings } from '../../../shared/console-settings.js';
import { formatLevels } from '../../../shared/event-summary.js';
import { formatMs } from '../../../shared/format.js';
import { deleteJson, getJson, seg } from '../api.js';
import { Badge, ErrorBox, Fields, JaegerLink, PageTitle, RouteLink, Show, useLoad } from '../bits.js';
import { Dag } from '../dag.js';
import { EventLog } from '../event-log.js';
import { type RunNode, stateFromDetail } from '../run-state.js';
import { Waterfall } from '../waterfall.js';

function NodeDetail({ node }: { node: RunNode }) {
  return (
    <details class={`node-detail node-${node.state}`} data-node={node.id}>
      <summary>
        <strong>{node.id}</strong> · {node.capability} · <Badge state={node.state} /> ·{' '}
        {node.agent ?? 'unbound'}
      </summary>
      <Fields
        pairs={[
          ['purpose', node.purpose || '–'],
          ['depends on', node.dependsOn.join(', ') || '–'],
          ['attempts', String(node.attempts)],
          ['duration', formatMs(node.durationMs)],
          node.error ? ['error', node.error] : null,
        ]}
      />
      <h4>Input context</h4>
      <pre class="node-context">
        {node.context === null ? '(none recorded)' : node.context || '(empty: no upstream output)'}
      </pre>
      <h4>Output</h4>
      <pre class="node-output">{node.output ?? '(none)'}</pre>
    </details>
  );
}

function TraceView({
  detail,
  settings,
  onDelete,
}: {
  detail: TraceDetailWire;
  settings: ConsoleSettings;
  onDelete: () => void;
}) {
  const state = stateFromDetail(detail);
  const t = detail.trace;
  const plan = detail.plan;
  return (
    <>
      <section class="card" aria-labelledby="trace-summary">
        <h2 id="trace-summary">
          Summary <Badge state={t.status} />
        </h2>
        <Fields
          pairs={[
            [
              'trace id',
              <code class="trace-id" key="id">
                {t.id}
              </code>,
            ],
            ['task', t.task],
            ['started', new Date(t.started_at).toLocaleString()],
            ['duration', formatMs(t.duration_ms)],
            t.error ? ['error', t.error] : null,
          ]}
        />
        <div class="actions">
          <JaegerLink settings={settings} traceId={t.id} />
          {t.status === 'running' ? <RouteLink to={['run', t.id]}>Watch live</RouteLink> : null}
          <button type="button" class="danger" onClick={onDelete}>
            Delete trace
          </button>
        </div>
      </section>
      <section class="card" aria-labelledby="trace-plan">
        <h2 id="trace-plan">Plan</h2>
        {plan ? (
          <Fields
            pairs={[
              ['layers', formatLevels(plan.levels)],
              ['planner', plan.provider ?? 'offline'],
              ['fallback plan', plan.degraded ? 'yes' : 'no'],
              [
                'warnings',
                plan.warnings.length ? (
                  <ul key="w">
                    {plan.warnings.map((w) => (
                      <li key={w}>{w}</li>
                    ))}
                  </ul>
                ) : (
                  'none'
                ),
              ],
            ]}
          />
        ) : (
          <p class="empty">No plan was stored.</p>
        )}
        <Dag state={state} />
      </section>
      <section class="card" aria-labelledby="trace-spans">
        <h2 id="trace-spans">Spans</h2>
        <Waterfall state={state} />
      </section>
      <section class="card" aria-labelledby="trace-nodes">
        <h2 id="trace-nodes">Nodes</h2>
        {state.order.map((id) => (
          <NodeDetail key={id} node={state.nodes[id]!} />
        ))}
      </section>
      <section class="card" aria-labelledby="trace-deliverable">
        <h2 id="trace-deliverable">Deliverable</h2>
        {t.summary ? <pre class="deliverable-text">{t.summary}</pre> : <p class="empty">No deliverable.</p>}
      </section>
      <section class="card" aria-labelledby="trace-events">
        <h2 id="trace-events">Events ({detail.events.length})</h2>
        <EventLog events={detail.events} detail />
      </section>
    </>
  );
}

/** The trace page for `params[0]`. */
export function TracePage({ params, settings }: { params: string[]; settings: ConsoleSettings }) {
  const id = params[0] ?? '';
  const [loaded] = useLoad(() => getJson<TraceDetailWire>(`/api/traces/${seg(id)}`), [id]);
  const [problem, setProblem] = useState<unknown>(null);
  const onDelete = async () => {
    if (!confirm(`Delete trace ${id}? This cannot be undone.`)) return;
    try {
      await deleteJson<DeletedWire>(`/api/traces/${seg(id)}`);
      location.hash = '#/traces';
    } catch (error) {
      setProblem(error);
    }
  };
  return (
    <>
      <PageTitle>Trace</PageTitle>
      {problem ? <ErrorBox error={problem} /> : null}
      <Show loaded={loaded}>
        {(detail) => <TraceView detail={detail} settings={settings} onDelete={onDelete} />}
      </Show>
      {loaded.status === 'error' ? (
        <p>
          <RouteLink to={['traces']}>Back to traces</RouteLink>
        </p>
      ) : null}
    </>
  );
}
