import { type ConnectionFigures, ConnectionMetrics } from '@agent-reach/sdk/node';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The orchestrator's Prometheus metrics, in a registry of its own (never the global one). */
export class OrchestratorMetrics {
  readonly registry = new Registry();
  readonly runsStarted = new Counter({
    name: 'reach_orchestrator_runs_started_total',
    help: 'Runs started.',
    registers: [this.registry],
  });
  readonly runsFinished = new Counter({
    name: 'reach_orchestrator_runs_finished_total',
    help: 'Runs finished, by status.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly runsActive = new Gauge({
    name: 'reach_orchestrator_runs_active',
    help: 'Runs in progress.',
    registers: [this.registry],
  });
  readonly runSeconds = new Histogram({
    name: 'reach_orchestrator_run_duration_seconds',
    help: 'End-to-end run time.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'reach_orchestrator_node_attempts_total',
    help: 'Agent call attempts, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly discoverySeconds = new Histogram({
    name: 'reach_orchestrator_discovery_duration_seconds',
    help: 'Time to discover every catalog capability.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly sseClients = new Gauge({
    name: 'reach_orchestrator_sse_clients',
    help: 'Open SSE streams.',
    registers: [this.registry],
  });
  readonly runsResumed = new Counter({
    name: 'reach_orchestrator_runs_resumed_total',
    help: 'Runs this orchestrator took over from a dead or stopped owner and went on with.',
    registers: [this.registry],
  });
  readonly runsLost = new Counter({
    name: 'reach_orchestrator_runs_lost_total',
    help: 'Runs stopped here because another orchestrator took them over (this one stopped renewing).',
    registers: [this.registry],
  });
  readonly reaped = new Counter({
    name: 'reach_orchestrator_traces_reaped_total',
    help: 'Stale running traces aborted.',
    registers: [this.registry],
  });

  private readonly connections = new ConnectionMetrics(this.registry, 'reach_orchestrator');

  /** Exposes the API server's connection figures (open, refused at the cap, closed idle). */
  watchConnections(stats: ConnectionFigures): void {
    this.connections.watch(stats);
  }

  /** @param defaults also collect the process's default metrics (off in tests). */
  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}
