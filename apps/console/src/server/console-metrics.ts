import { type ConnectionFigures, ConnectionMetrics } from '@agent-reach/sdk/node';
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';

/** The console's Prometheus metrics, on a registry of their own (never prom-client's global one). */
export class ConsoleMetrics {
  readonly registry = new Registry();
  readonly proxied = new Counter({
    name: 'reach_console_proxy_requests_total',
    help: 'Requests the console passed to an API, by upstream and outcome (the status class, or unreachable).',
    labelNames: ['upstream', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly connections = new ConnectionMetrics(this.registry, 'reach_console');

  /** Exposes the server's connection figures (open, refused at the cap, closed idle). */
  watchConnections(stats: ConnectionFigures): void {
    this.connections.watch(stats);
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
