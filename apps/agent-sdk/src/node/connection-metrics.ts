import { Counter, Gauge, type Registry } from 'prom-client';
import type { ConnectionStats } from './connection-guard.js';

/** One server's connection figures; a server without an idle timeout leaves out `idleClosed`. */
export type ConnectionFigures = Pick<ConnectionStats, 'open' | 'dropped'> & { idleClosed?: number };

/**
 * Exposes guarded servers' connection figures (`guardConnections`' stats) on a prom-client registry,
 * read at scrape time: `<prefix>_connections`, `<prefix>_connections_dropped_total` and
 * `<prefix>_connections_idle_closed_total`. Built with a `label`, each watched server is one value of it
 * (the registry's `server="http"` and `server="dns_tcp"`); without one, a single server, unlabelled.
 */
export class ConnectionMetrics {
  private readonly sources = new Map<string, ConnectionFigures>();

  constructor(registry: Registry, prefix: string, label?: string) {
    const sources = this.sources;
    const labelNames = label === undefined ? [] : [label];
    const by = label === undefined ? '' : `, by ${label}`;
    const labelsOf = (key: string) => (label === undefined ? {} : { [label]: key });
    new Gauge({
      name: `${prefix}_connections`,
      help: `Open connections${by}.`,
      labelNames,
      registers: [registry],
      collect() {
        for (const [key, stats] of sources) this.set(labelsOf(key), stats.open);
      },
    });
    new Counter({
      name: `${prefix}_connections_dropped_total`,
      help: `Connections refused at the connection cap${by}.`,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, stats] of sources) this.inc(labelsOf(key), stats.dropped);
      },
    });
    new Counter({
      name: `${prefix}_connections_idle_closed_total`,
      help: `Connections the server closed for staying idle past the idle timeout${by}.`,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, stats] of sources) this.inc(labelsOf(key), stats.idleClosed ?? 0);
      },
    });
  }

  /** Reads `stats` at every scrape, as the server `server` (the label's value; ignored when unlabelled). */
  watch(stats: ConnectionFigures, server = ''): void {
    this.sources.set(server, stats);
  }
}
