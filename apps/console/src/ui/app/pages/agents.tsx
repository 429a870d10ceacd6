// Agents: live instances from the registry, the capabilities discovery sees, and one agent's
// declaration history.
import type {
  CapabilityView,
  Declaration,
  DeclarationHistoryEntry,
  DiscoveryView,
  InstanceState,
  InstanceView,
} from '@agent-reach/sdk/protocol';
import { formatAgo } from '../../../shared/format.js';
import { getJson, seg } from '../api.js';
import { Badge, type Column, Fields, PageTitle, RouteLink, Show, Table, useLoad } from '../bits.js';
import { descriptionCell, originCell, providersCell } from '../capability-cells.js';

const STATE_BADGE: Record<InstanceState, string> = {
  healthy: 'succeeded',
  suspect: 'running',
  unavailable: 'failed',
  deregistered: 'unavailable',
};

const COLUMNS: Column<InstanceView>[] = [
  { header: 'Instance', cell: (i) => <code>{i.instance_id}</code> },
  { header: 'Agent', cell: (i) => <RouteLink to={['agents', i.agent_name]}>{i.agent_name}</RouteLink> },
  { header: 'Capabilities', cell: (i) => i.capabilities.join(', '), class: 'wide' },
  { header: 'State', cell: (i) => <Badge state={STATE_BADGE[i.state]} text={i.state} /> },
  {
    header: 'Load',
    cell: (i) => `${i.load.in_flight}/${i.load.capacity}${i.load.queue ? ` +${i.load.queue} queued` : ''}`,
    class: 'num',
  },
  {
    header: 'Last heartbeat',
    cell: (i) => <span title={i.last_heartbeat_at ?? ''}>{formatAgo(i.last_heartbeat_at)}</span>,
  },
  { header: 'Endpoint', cell: (i) => `${i.endpoint.host}:${i.endpoint.port}` },
  { header: 'Version', cell: (i) => i.declaration_version },
];

type Op = [string, Declaration['capabilities'][string]];

function Operations({ declaration }: { declaration: Declaration }) {
  return (
    <Table<Op>
      label="operations"
      columns={[
        { header: 'Operation', cell: ([name]) => <strong>{name}</strong> },
        { header: 'Description', cell: ([, op]) => op.description ?? '–', class: 'wide' },
        { header: 'Tags', cell: ([, op]) => op.tags?.join(', ') || '–' },
        { header: 'Serves', cell: ([, op]) => op.serves?.join(', ') || '–' },
        { header: 'Max input', cell: ([, op]) => String(op.constraints?.max_tokens ?? '–'), class: 'num' },
        {
          header: 'Answer time',
          cell: ([, op]) =>
            op.constraints?.response_time_sec ? `${op.constraints.response_time_sec}s` : '–',
        },
        { header: 'Formats', cell: ([, op]) => op.constraints?.output_formats?.join(', ') || '–' },
      ]}
      rows={Object.entries(declaration.capabilities)}
      rowKey={([name]) => name}
    />
  );
}

function History({ name }: { name: string }) {
  const [loaded] = useLoad(
    () =>
      getJson<{ agent_name: string; history: DeclarationHistoryEntry[] }>(
        `/registry/v1/declarations/${seg(name)}`,
      ),
    [name],
  );
  return (
    <section class="card" id="declarations" aria-labelledby="declarations-title">
      <h2 id="declarations-title">Declaration history · {name}</h2>
      <Show loaded={loaded}>
        {(body) =>
          body.history.length === 0 ? (
            <p class="empty">No declarations recorded.</p>
          ) : (
            body.history
              .slice()
              .reverse()
              .map((e, i) => (
                <details class="declaration" open={i === 0} key={e.version}>
                  <summary>
                    <strong>version {e.version}</strong> · {new Date(e.recorded_at).toLocaleString()} ·{' '}
                    {e.change_reason ?? 'no change reason'}
                  </summary>
                  <Fields
                    pairs={[
                      ['domain', e.declaration.domain],
                      ['priority', String(e.declaration.priority)],
                      ['idempotent', e.declaration.idempotent ? 'yes' : 'no'],
                      ['substitutable', e.declaration.substitutable ? 'yes' : 'no'],
                      ['changed by', e.changed_by ?? '–'],
                    ]}
                  />
                  <Operations declaration={e.declaration} />
                </details>
              ))
          )
        }
      </Show>
    </section>
  );
}

const CAPABILITY_COLUMNS: Column<CapabilityView>[] = [
  { header: 'Capability', cell: (c) => <strong>{c.capability}</strong> },
  { header: 'Origin', cell: originCell },
  { header: 'Description', cell: descriptionCell, class: 'wide' },
  { header: 'Providers', cell: providersCell },
  { header: 'Source', cell: (c) => c.source },
];

/** The Agents page; `params[0]` is an agent whose declaration history to show. Instances refresh every 5 s. */
export function AgentsPage({ params }: { params: string[] }) {
  const [agents] = useLoad(() => getJson<{ instances: InstanceView[] }>('/registry/v1/agents'), [], 5000);
  // Once per visit: a discovery asks DNS and every card, too much for the 5 s refresh.
  const [caps] = useLoad(() => getJson<DiscoveryView>('/api/discovery'), []);
  return (
    <>
      <PageTitle>Agents</PageTitle>
      <section class="card" id="agents" aria-labelledby="agents-title">
        <h2 id="agents-title">Instances</h2>
        <Show loaded={agents}>
          {({ instances }) => (
            <Table
              label="agent instances"
              columns={COLUMNS}
              rows={instances}
              empty="No agent is registered."
              rowKey={(i) => i.instance_id}
            />
          )}
        </Show>
      </section>
      <section class="card" id="capabilities" aria-labelledby="capabilities-title">
        <h2 id="capabilities-title">Capabilities</h2>
        <Show loaded={caps} loading="Asking DNS…">
          {(view) => (
            <Table
              label="capabilities"
              columns={CAPABILITY_COLUMNS}
              rows={Object.values(view.capabilities)}
              empty="None."
              rowKey={(c) => c.capability}
            />
          )}
        </Show>
      </section>
      {params[0] ? <History name={params[0]} /> : null}
    </>
  );
}
