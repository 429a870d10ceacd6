import { type ConnectionFigures, ConnectionMetrics } from '@agent-reach/sdk/node';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The heartbeat outcomes counted in `reach_registry_heartbeats_total`. */
export type HeartbeatOutcome = 'accepted' | 'stale' | 'unknown' | 'invalid_token';

/** Who refreshed an instance's lease, counted in `reach_registry_lease_keepalives_total`. */
export type KeepAliveSource = 'heartbeat' | 'storm_hold';

/**
 * A counter of one label whose hot-path counts live in plain fields (`pending`) and are handed to
 * prom-client at scrape time, then zeroed: no label lookup per event.
 */
function countedAtScrape<K extends string>(
  registry: Registry,
  options: { name: string; help: string; label: string; pending: Record<K, number> },
): Counter<string> {
  const { name, help, label, pending } = options;
  return new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      for (const key of Object.keys(pending) as K[]) {
        if (pending[key] > 0) this.inc({ [label]: key }, pending[key]);
        pending[key] = 0;
      }
    },
  });
}

/** Live instance counts by liveness state, read at scrape time. */
export type StateCounts = () => Record<'healthy' | 'suspect', number>;

/** The registry's Prometheus metrics, on a registry of their own (never prom-client's global one). */
export class RegistryMetrics {
  readonly registry = new Registry();
  readonly registrations = new Counter({
    name: 'reach_registry_registrations_total',
    help: 'Registration attempts by result (ok or the error code).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly deregistrations = new Counter({
    name: 'reach_registry_deregistrations_total',
    help: 'Graceful deregistrations.',
    registers: [this.registry],
  });
  readonly stormActive = new Gauge({
    name: 'reach_registry_storm_active',
    help: '1 while storm protection holds silent instances, else 0.',
    registers: [this.registry],
  });
  readonly stormEvents = new Counter({
    name: 'reach_registry_storm_events_total',
    help: 'Times storm protection started.',
    registers: [this.registry],
  });
  readonly stormHeld = new Gauge({
    name: 'reach_registry_storm_held_instances',
    help: 'Silent instances whose records storm protection keeps alive right now.',
    registers: [this.registry],
  });
  readonly stormProbes = new Counter({
    name: 'reach_registry_storm_probes_total',
    help: 'Probes of silent instances during storm protection, by verdict (dead, alive, unknown).',
    labelNames: ['verdict'] as const,
    registers: [this.registry],
  });
  readonly evictions = new Counter({
    name: 'reach_registry_evictions_total',
    help: 'Instances the leader evicted (revoked their leases): silent past heartbeat_timeout, after a storm hold, or proved dead.',
    registers: [this.registry],
  });
  readonly heartbeats: Counter<string>;
  readonly leaseKeepAlives: Counter<string>;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  // Requests too are counted in a plain map and handed over at scrape time.
  private readonly pendingRequests = new Map<
    string,
    { method: string; route: string; status: string; n: number }
  >();

  // Heartbeats are the hot path: count them in plain fields and hand them to prom-client at scrape time.
  private readonly pendingHeartbeats: Record<HeartbeatOutcome, number> = {
    accepted: 0,
    stale: 0,
    unknown: 0,
    invalid_token: 0,
  };

  // Keep-alives ride the heartbeat hot path too: plain fields, handed over at scrape time.
  private readonly pendingKeepAlives: Record<KeepAliveSource, number> = { heartbeat: 0, storm_hold: 0 };

  private readonly connections = new ConnectionMetrics(this.registry, 'reach_registry', 'server');

  /** @param processMetrics also collect the process's default metrics (CPU, memory, event loop, GC). */
  constructor(stateCounts: StateCounts, isLeader: () => boolean, processMetrics = false) {
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
    this.heartbeats = countedAtScrape(this.registry, {
      name: 'reach_registry_heartbeats_total',
      help: 'Heartbeats by outcome.',
      label: 'outcome',
      pending: this.pendingHeartbeats,
    });
    this.leaseKeepAlives = countedAtScrape(this.registry, {
      name: 'reach_registry_lease_keepalives_total',
      help: 'Instance lease refreshes sent to the store, by what sent them (heartbeat, storm_hold); per heartbeat, what a heartbeat costs the store.',
      label: 'by',
      pending: this.pendingKeepAlives,
    });
    const requests = this.pendingRequests;
    this.httpRequests = new Counter({
      name: 'reach_registry_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [this.registry],
      collect() {
        for (const { method, route, status, n } of requests.values()) this.inc({ method, route, status }, n);
        requests.clear();
      },
    });
    new Gauge({
      name: 'reach_registry_instances',
      help: 'Live instances by liveness state.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        for (const [state, count] of Object.entries(stateCounts())) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'reach_registry_leader',
      help: '1 when this replica leads (runs sweeps), else 0.',
      registers: [this.registry],
      collect() {
        this.set(isLeader() ? 1 : 0);
      },
    });
  }

  /**
   * Exposes a server's connection figures (`server`: `http` or `dns_tcp`) as
   * `reach_registry_connections{server}`, `…_connections_dropped_total` and `…_connections_idle_closed_total`.
   */
  watchConnections(server: string, stats: ConnectionFigures): void {
    this.connections.watch(stats, server);
  }

  /** Counts one heartbeat outcome (cheap: no label lookup on the hot path). */
  countHeartbeat(outcome: HeartbeatOutcome): void {
    this.pendingHeartbeats[outcome]++;
  }

  /** Counts `n` lease refreshes sent to the store. */
  countKeepAlive(by: KeepAliveSource, n = 1): void {
    this.pendingKeepAlives[by] += n;
  }

  /** Counts one HTTP request by its route pattern (not its path, which would explode the label set). */
  countRequest(method: string, route: string, status: number): void {
    const key = `${method} ${route} ${status}`;
    const pending = this.pendingRequests.get(key);
    if (pending) pending.n++;
    else this.pendingRequests.set(key, { method, route, status: String(status), n: 1 });
  }

  /** The exposition text for `GET /metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
