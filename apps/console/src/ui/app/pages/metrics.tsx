// Metrics: the registry's routing figures (seed article 6.3) as tiles and trends, per-instance outcome
// windows, and the durations of recent runs. A rate with no call behind it says "no calls yet".
import type { InstanceRoutingStats, RoutingStats, TracePageWire } from '@agent-reach/sdk/protocol';
import { formatMs, formatPct } from '../../../shared/format.js';
import { getJson } from '../api.js';
import { Badge, type Column, PageTitle, Show, Table, useLoad } from '../bits.js';
import { Sparkline } from '../sparkline.js';

const NO_CALLS = 'no calls yet';
const SAMPLE_MS = 5000;
const MAX_SAMPLES = 120;

/** One poll of the routing stats. */
interface Sample {
  at: number;
  stats: RoutingStats;
}

/** Samples kept while the console is open (across page changes), oldest first. */
const samples: Sample[] = [];

function record(stats: RoutingStats): Sample[] {
  samples.push({ at: Date.now(), stats });
  if (samples.length > MAX_SAMPLES) samples.splice(0, samples.length - MAX_SAMPLES);
  return samples.slice();
}

function Tile({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div class="tile">
      <div class="tile-value">{value}</div>
      <div class="tile-label">{label}</div>
      {note ? <div class="tile-note">{note}</div> : null}
    </div>
  );
}

const INSTANCE_COLUMNS: Column<InstanceRoutingStats>[] = [
  { header: 'Instance', cell: (i) => <code>{i.instance_id}</code> },
  { header: 'Agent', cell: (i) => i.agent_name },
  {
    header: 'State',
    cell: (i) => <Badge state={i.state === 'healthy' ? 'succeeded' : 'unavailable'} text={i.state} />,
  },
  { header: 'Window', cell: (i) => String(i.window), class: 'num' },
  { header: 'Failures', cell: (i) => String(i.failures), class: 'num' },
  // With no call in its window the rate is only the prior: say so instead of showing it.
  {
    header: 'Success rate',
    cell: (i) => (i.window > 0 ? formatPct(i.success_rate) : NO_CALLS),
    class: 'num',
  },
  { header: 'p50', cell: (i) => (i.latency_ms ? formatMs(i.latency_ms.p50) : '–'), class: 'num' },
  { header: 'p95', cell: (i) => (i.latency_ms ? formatMs(i.latency_ms.p95) : '–'), class: 'num' },
];

/** Calls per sampling interval, from the running total. */
function callsPerInterval(history: Sample[]): Array<number | null> {
  return history.map((s, i) =>
    i === 0 ? null : Math.max(0, s.stats.calls.total - history[i - 1]!.stats.calls.total),
  );
}

function RoutingView({ history }: { history: Sample[] }) {
  const stats = history.at(-1)!.stats;
  const called = stats.calls.total > 0;
  // A rate over no calls is the prior, not a measurement.
  const rate = (share: number) => (called ? formatPct(share) : NO_CALLS);
  const rateSeries = (pick: (s: RoutingStats) => number) =>
    history.map((s) => (s.stats.calls.total > 0 ? pick(s.stats) : null));
  const retries = Object.entries(stats.calls.retries);
  return (
    <>
      <div class="tiles">
        <Tile
          label="route hit rate"
          value={rate(stats.calls.hit_rate)}
          note="calls the first candidate served"
        />
        <Tile
          label="fallback rate"
          value={rate(stats.calls.fallback_rate)}
          note="calls that needed a fallback"
        />
        <Tile label="calls" value={String(stats.calls.total)} note={`${stats.calls.failed} failed`} />
        <Tile
          label="route queries"
          value={String(stats.routes.total)}
          note={`cache hit rate ${stats.routes.total > 0 ? formatPct(stats.routes.cache_hit_rate) : 'no queries yet'}`}
        />
      </div>
      <h2>Trends</h2>
      <p class="hint">
        Sampled every {SAMPLE_MS / 1000} s while the console is open ({history.length} samples).
      </p>
      <div class="sparks">
        <Sparkline
          label="calls per 5 s"
          values={callsPerInterval(history)}
          format={(v) => String(Math.round(v))}
        />
        <Sparkline
          label="route hit rate"
          values={rateSeries((s) => s.calls.hit_rate)}
          format={formatPct}
          max={1}
        />
        <Sparkline
          label="fallback rate"
          values={rateSeries((s) => s.calls.fallback_rate)}
          format={formatPct}
          max={1}
        />
      </div>
      <h2>Retries per call</h2>
      {retries.length === 0 ? (
        <p class="empty">{NO_CALLS}</p>
      ) : (
        <Table
          label="retries per call"
          columns={retries.map(([k, n]) => ({
            header: k === '1' ? '1 retry' : `${k} retries`,
            cell: () => String(n),
            class: 'num',
          }))}
          rows={[stats]}
        />
      )}
      <h2>Instances</h2>
      <Table
        label="instance outcome windows"
        columns={INSTANCE_COLUMNS}
        rows={stats.instances}
        empty="No instance has outcomes yet."
        rowKey={(i) => i.instance_id}
      />
    </>
  );
}

function RunsView({ page }: { page: TracePageWire }) {
  const finished = page.items.filter((t) => t.duration_ms !== null).reverse();
  if (finished.length === 0) return <p class="empty">No finished run yet.</p>;
  const ok = finished.filter((t) => t.status === 'ok').length;
  return (
    <div class="sparks">
      <Sparkline
        label={`duration of the last ${finished.length} runs`}
        values={finished.map((t) => t.duration_ms)}
        format={formatMs}
      />
      <p class="spark-note">
        {ok} of {finished.length} ended ok ({formatPct(ok / finished.length)})
      </p>
    </div>
  );
}

/** The Metrics page; routing stats refresh every 5 s. */
export function MetricsPage() {
  const [routing] = useLoad(
    async () => record(await getJson<RoutingStats>('/registry/v1/routing/stats')),
    [],
    SAMPLE_MS,
  );
  const [runs] = useLoad(() => getJson<TracePageWire>('/api/traces?limit=50'), [], 15_000);
  return (
    <>
      <PageTitle>Metrics</PageTitle>
      <section class="card" aria-labelledby="routing-title">
        <h2 id="routing-title">Routing</h2>
        <Show loaded={routing}>{(history) => <RoutingView history={history} />}</Show>
      </section>
      <section class="card" id="runs" aria-labelledby="runs-title">
        <h2 id="runs-title">Runs</h2>
        <Show loaded={runs}>{(page) => <RunsView page={page} />}</Show>
      </section>
    </>
  );
}
