import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** The console's Prometheus metrics, on a registry of their own (never prom-client's global one). */
export class ConsoleMetrics {
  readonly registry = new Registry();
  readonly proxied = new Counter({
    name: 'reach_console_proxy_requests_total',
    help: 'Requests the console passed to an API, by upstream and outcome (the status class, or unreachable).',
    labelNames: ['upstream', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Exposes the server's connection figures (open, refused at the cap, closed idle). */
  watchConnections(stats: { open: number; dropped: number; idleClosed: number }): void {
    new Gauge({
      name: 'reach_console_connections',
      help: 'Open HTTP connections.',
      registers: [this.registry],
      collect() {
        this.set(stats.open);
      },
    });
    new Counter({
      name: 'reach_console_connections_dropped_total',
      help: 'HTTP connections refused at the connection cap.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(stats.dropped);
      },
    });
    new Counter({
      name: 'reach_console_connections_idle_closed_total',
      help: 'HTTP connections the server closed while idle.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(stats.idleClosed);
      },
    });
  }

  /** @param processMetrics also collect the process's default metrics (CPU, memory, event loop, GC). */
  constructor(processMetrics = false) {
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The text exposition format and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
