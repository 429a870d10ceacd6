import type { Logger } from 'pino';
import type { RegistryConfig } from '../config.js';
import type { InstanceSource } from '../instances/instance-source.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import { compileDnsOptions } from './dns-config.js';
import { type DnsResponder, startDnsResponder } from './responder.js';
import { startDnsResponderProcesses } from './responder-processes.js';
import { startDnsResponderThread } from './responder-thread.js';
import { Zone } from './zone.js';
import type { ZoneExport } from './zone-file.js';

/** The registry's live zone, named and timed by its config; unpublishable registrations are logged. */
export function createRegistryZone(instances: InstanceSource, config: RegistryConfig, logger: Logger): Zone {
  return new Zone(instances, {
    ...compileDnsOptions(config.reach).zone,
    // With the responder thread or processes, they hold the only encoded copies of the zone.
    laidOut: !config.reach.dns.responder_thread && config.reach.dns.responder_processes === 0,
    onSkip: (instanceId, error) =>
      logger.warn(
        { instance_id: instanceId, code: error.code, err: error },
        'instance left out of the DNS zone',
      ),
  });
}

/**
 * Starts the authoritative responder for a registry's zone on `dns.listen` (or `listen`): on a thread
 * of its own (`dns.responder_thread`, the default), which then also makes the zone's exports, as
 * `dns.responder_processes` child processes sharing the address (this thread then answers nothing),
 * or on the main thread.
 */
export async function startRegistryDns(
  registry: { zone: Zone; config: RegistryConfig; logger: Logger; metrics?: RegistryMetrics },
  listen: { host: string; port: number } = compileDnsOptions(registry.config.reach).listen,
): Promise<DnsResponder> {
  const onError = (err: Error) => registry.logger.warn({ err }, 'dns responder socket error');
  const tcp = registry.config.reach.dns.tcp;
  const limits = { tcpIdleTimeoutMs: tcp.idle_timeout, maxTcpConnections: tcp.max_connections };
  const { responder_thread: thread, responder_processes: processes } = registry.config.reach.dns;
  if (processes > 0) {
    const responder = await startDnsResponderProcesses({
      zone: registry.zone,
      host: listen.host,
      port: listen.port,
      count: processes,
      ...limits,
      onError,
      onRestart: (index, err, delayMs) =>
        registry.logger.error(
          { err, process: index, delay_ms: delayMs },
          'dns responder process died; starting a new one',
        ),
    });
    return exportingFrom(registry.zone, responder);
  }
  if (!thread) {
    const tcpStats = { open: 0, dropped: 0, idleClosed: 0 };
    registry.metrics?.watchConnections('dns_tcp', tcpStats);
    return startDnsResponder({
      zone: registry.zone,
      host: listen.host,
      port: listen.port,
      onError,
      tcpStats,
      ...limits,
    });
  }
  const responder = await startDnsResponderThread({
    zone: registry.zone,
    host: listen.host,
    port: listen.port,
    ...limits,
    onError,
    onRestart: (err, delayMs) =>
      registry.logger.error({ err, delay_ms: delayMs }, 'dns responder thread died; starting a new one'),
  });
  return exportingFrom(registry.zone, responder);
}

/** `responder` with `zone`'s exports made by it (it holds the encoded zone) until it stops. */
function exportingFrom<R extends DnsResponder & { exportZone(): Promise<ZoneExport> }>(
  zone: Zone,
  responder: R,
): R {
  zone.exportVia(() => responder.exportZone());
  const stop = responder.stop.bind(responder);
  return Object.assign(responder, {
    stop: async () => {
      zone.exportVia(undefined);
      await stop();
    },
  });
}
