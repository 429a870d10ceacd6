import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConnectionMetrics } from './connection-metrics.js';

describe('ConnectionMetrics', () => {
  it('reads one unlabelled server’s figures at each scrape', async () => {
    const registry = new Registry();
    const stats = { open: 2, dropped: 1, idleClosed: 0 };
    new ConnectionMetrics(registry, 'reach_test').watch(stats);
    expect(await registry.metrics()).toContain('reach_test_connections 2\n');
    stats.open = 5;
    stats.dropped = 3;
    stats.idleClosed = 4;
    const text = await registry.metrics();
    expect(text).toContain('reach_test_connections 5\n');
    expect(text).toContain('reach_test_connections_dropped_total 3\n');
    expect(text).toContain('reach_test_connections_idle_closed_total 4\n');
  });

  it('labels each watched server, counting a missing idle figure as 0', async () => {
    const registry = new Registry();
    const metrics = new ConnectionMetrics(registry, 'reach_test', 'server');
    metrics.watch({ open: 1, dropped: 0, idleClosed: 7 }, 'http');
    metrics.watch({ open: 3, dropped: 2 }, 'dns_tcp');
    const text = await registry.metrics();
    expect(text).toContain('reach_test_connections{server="http"} 1\n');
    expect(text).toContain('reach_test_connections{server="dns_tcp"} 3\n');
    expect(text).toContain('reach_test_connections_dropped_total{server="dns_tcp"} 2\n');
    expect(text).toContain('reach_test_connections_idle_closed_total{server="http"} 7\n');
    expect(text).toContain('reach_test_connections_idle_closed_total{server="dns_tcp"} 0\n');
  });
});
