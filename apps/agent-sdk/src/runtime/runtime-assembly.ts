import type { Declaration, Endpoint, RegisterRequest, RegisterResponse } from '../protocol/index.js';
import { createAgentApp, type HealthStatus } from './agent-app.js';
import { type CardDocument, cardDocument } from './card-document.js';
import { type HeartbeatEvent, HeartbeatLoop } from './heartbeat-loop.js';
import { type Listener, listen } from './http-listener.js';
import type { InvokeHandler } from './invoke-context.js';
import { InvokeService } from './invoke-service.js';
import { LoadGauge } from './load-gauge.js';
import { RegistryClient } from './registry-client.js';
import type { CompiledRuntimeOptions } from './runtime-options.js';

/** Where a started agent is and under which registration it runs. */
export interface RuntimeRegistration {
  instanceId: string;
  /** The agent's base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** base64url sha256 of the served card bytes, as registered (SVCB key65401). */
  cardSha256: string;
  heartbeatIntervalMs: number;
  declarationVersion: string;
}

/** The parts of a runtime that exist from the moment its server listens. */
export interface Running {
  options: CompiledRuntimeOptions;
  declaration: Declaration;
  endpoint: Endpoint;
  card: CardDocument;
  gauge: LoadGauge;
  service: InvokeService;
  listener: Listener;
  client: RegistryClient;
  heartbeat: HeartbeatLoop;
}

/** What the assembled parts read from the runtime that owns them. */
export interface RuntimeView {
  status: () => HealthStatus;
  instanceId: () => string | undefined;
  onHeartbeat: (event: HeartbeatEvent) => void;
}

/** Builds the invoke service and HTTP app, listens, and prepares the card, registry client and heartbeat loop. */
export async function assemble(
  options: CompiledRuntimeOptions,
  declaration: Declaration,
  handler: InvokeHandler,
  view: RuntimeView,
): Promise<Running> {
  const gauge = new LoadGauge(options.capacity);
  const service = new InvokeService({
    declaration,
    handler,
    gauge,
    clock: options.clock,
    logger: options.logger,
    ledger: options.ledger,
    defaultTimeoutMs: options.executionTimeoutMs,
    hook: options.invokeHook,
  });
  let card: CardDocument | null = null;
  const app = createAgentApp({
    service,
    health: () => ({
      status: view.status(),
      in_flight: gauge.inFlight,
      capacity: gauge.capacity,
      instance_id: view.instanceId() ?? null,
    }),
    card: () => card,
    instanceId: view.instanceId,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    clock: options.clock,
    ledger: options.ledger,
  });
  const listener = await listen(app, options.host, options.port);
  const endpoint: Endpoint = {
    host: options.advertiseHost,
    port: listener.port,
    scheme: 'http',
    alpn: ['http/1.1'],
  };
  card = cardDocument(declaration, endpoint);
  const heartbeat = new HeartbeatLoop({
    controlPlaneUrl: options.controlPlaneUrl,
    gauge,
    logger: options.logger,
    onEvent: view.onHeartbeat,
  });
  heartbeat.prepare();
  const client = new RegistryClient(options.controlPlaneUrl, options.registryToken);
  return { options, declaration, endpoint, card, gauge, service, listener, client, heartbeat };
}

/**
 * The registration body: the declaration, where to reach the agent, and the card's digest; after a
 * lost lease also the previous id and lease token, so the registry can give the id back.
 */
export function registerRequest(running: Running, previous?: RegisterResponse): RegisterRequest {
  const request: RegisterRequest = {
    declaration: running.declaration,
    endpoint: running.endpoint,
    card_sha256: running.card.sha256,
  };
  if (previous) request.previous = { instance_id: previous.instance_id, lease_token: previous.lease_token };
  return request;
}

/** An endpoint's base URL (IPv6 in brackets). */
export function baseUrl(endpoint: Endpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.scheme}://${host}:${endpoint.port}`;
}

/** The public view of a registration. */
export function describeRegistration(running: Running, lease: RegisterResponse): RuntimeRegistration {
  return {
    instanceId: lease.instance_id,
    url: baseUrl(running.endpoint),
    cardSha256: running.card.sha256,
    heartbeatIntervalMs: lease.heartbeat_interval_ms,
    declarationVersion: lease.declaration_version,
  };
}
