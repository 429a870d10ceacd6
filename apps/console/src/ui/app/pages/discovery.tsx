// Discovery: what the orchestrator's capability index sees through DNS, per capability.
import type {
  CandidateView,
  CapabilityView,
  DiscoveryView,
  FailedCandidate,
} from '@agent-reach/sdk/protocol';
import { formatMs } from '../../../shared/format.js';
import { getJson } from '../api.js';
import { Badge, type Column, Fields, PageTitle, Show, Table, useLoad } from '../bits.js';
import { descriptionCell, originCell, providersCell } from '../capability-cells.js';

const candidateList = (candidates: CandidateView[]) =>
  candidates.length === 0 ? (
    '–'
  ) : (
    <ul class="compact">
      {candidates.map((c) => (
        <li key={c.instance}>
          <strong>{c.agent_name}</strong> {c.endpoint} · prio {c.priority} · weight {c.weight} ·{' '}
          <Badge state={c.health === 'healthy' ? 'succeeded' : 'pending'} text={c.health} />
        </li>
      ))}
    </ul>
  );

const failedList = (failed: FailedCandidate[]) =>
  failed.length === 0 ? (
    '–'
  ) : (
    <ul class="compact">
      {failed.map((f) => (
        <li key={f.instance}>
          {f.instance} ({f.stage}): {f.reason} — {f.message}
        </li>
      ))}
    </ul>
  );

const COLUMNS: Column<CapabilityView>[] = [
  { header: 'Capability', cell: (c) => <strong>{c.capability}</strong> },
  { header: 'Origin', cell: originCell },
  { header: 'Description', cell: descriptionCell, class: 'wide' },
  { header: 'Providers', cell: providersCell },
  { header: 'Source', cell: (c) => c.source },
  {
    header: 'Available',
    cell: (c) => (
      <Badge state={c.available ? 'succeeded' : 'unavailable'} text={c.available ? 'yes' : 'no'} />
    ),
  },
  { header: 'Reason', cell: (c) => c.reason ?? '–' },
  { header: 'Candidates', cell: (c) => candidateList(c.candidates), class: 'wide' },
  { header: 'Failed', cell: (c) => failedList(c.failed) },
];

function statsRows(view: DiscoveryView) {
  return Object.keys(view.stats) as Array<keyof DiscoveryView['stats']>;
}

/** The Discovery page. */
export function DiscoveryPage() {
  const [loaded, reload] = useLoad(() => getJson<DiscoveryView>('/api/discovery'), []);
  return (
    <>
      <PageTitle>Discovery</PageTitle>
      <section class="card" aria-label="discovery">
        <div class="actions">
          <button type="button" onClick={reload}>
            Discover again
          </button>
        </div>
        <Show loaded={loaded} loading="Asking DNS…">
          {(view) => (
            <>
              <Fields
                pairs={[
                  ['zone', view.zone],
                  ['DNS server', view.dns_server],
                  ['discovered', new Date(view.discovered_at).toLocaleString()],
                  ['took', formatMs(view.duration_ms)],
                  ['selection', view.strategy],
                ]}
              />
              <h2>Capabilities</h2>
              <Table
                label="capabilities"
                columns={COLUMNS}
                rows={Object.values(view.capabilities)}
                empty="No capabilities."
                rowKey={(c) => c.capability}
              />
              <h2>Counters</h2>
              <Table
                label="discovery counters"
                columns={[
                  { header: 'Counter', cell: (k) => k },
                  { header: 'This pass', cell: (k) => String(view.stats[k] ?? 0), class: 'num' },
                  { header: 'Since start', cell: (k) => String(view.totals[k] ?? 0), class: 'num' },
                ]}
                rows={statsRows(view)}
                rowKey={(k) => k}
              />
            </>
          )}
        </Show>
      </section>
    </>
  );
}
