import { describe, expect, it } from 'vitest';
import { RegistryMetrics } from './registry-metrics.js';

describe('RegistryMetrics', () => {
  it('renders counters, state gauges and leadership from its own registry', async () => {
    let leader = false;
    const metrics = new RegistryMetrics(
      () => ({ healthy: 3, suspect: 1 }),
      () => leader,
    );
    metrics.countHeartbeat('accepted');
    metrics.countHeartbeat('accepted');
    metrics.countHeartbeat('stale');
    metrics.registrations.inc({ result: 'ok' });
    metrics.countRequest('POST', '/v1/agents/:id/heartbeat', 200);
    metrics.countRequest('POST', '/v1/agents/:id/heartbeat', 200);
    leader = true;
    const { body, contentType } = await metrics.render();
    expect(contentType).toContain('text/plain');
    expect(body).toContain('reach_registry_heartbeats_total{outcome="accepted"} 2');
    expect(body).toContain('reach_registry_heartbeats_total{outcome="stale"} 1');
    expect(body).toContain('reach_registry_registrations_total{result="ok"} 1');
    expect(body).toContain('reach_registry_instances{state="healthy"} 3');
    expect(body).toContain('reach_registry_instances{state="suspect"} 1');
    expect(body).toContain('reach_registry_leader 1');
    expect(body).toContain('reach_registry_storm_active 0');
    expect(body).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/agents/:id/heartbeat",status="200"} 2',
    );
    // A second scrape does not count the same heartbeats twice.
    expect((await metrics.render()).body).toContain('reach_registry_heartbeats_total{outcome="accepted"} 2');
  });

  it('keeps two registries apart', async () => {
    const a = new RegistryMetrics(
      () => ({ healthy: 0, suspect: 0 }),
      () => false,
    );
    const b = new RegistryMetrics(
      () => ({ healthy: 0, suspect: 0 }),
      () => false,
    );
    a.evictions.inc(5);
    expect((await b.render()).body).toContain('reach_registry_evictions_total 0');
  });
});
