import { Outcome } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { testInstance } from '../testing/routing-instances.js';
import { Router } from './router.js';

describe('routing metrics in Prometheus', () => {
  it('exposes route cache hits, calls by who served them, retries and per-instance success and latency', async () => {
    const registry = new Registry();
    const source = new FakeInstanceSource();
    const router = new Router({ source, clock: new ManualClock(), metricsRegistry: registry });
    source.put(
      testInstance('sum-1', { agent: 'summarizer' }),
      testInstance('sum-2', { agent: 'summarizer' }),
    );
    router.route({ operation: 'summarize', constraints: {}, max_candidates: 3, exclude: [] });
    router.route({ operation: 'summarize', constraints: {}, max_candidates: 3, exclude: [] });
    router.recordOutcomes({
      outcomes: [
        Outcome.parse({
          instance_id: 'sum-1',
          request_id: 'a',
          ok: false,
          failure: 'ack_timeout',
          latency_ms: 2300,
        }),
        Outcome.parse({
          instance_id: 'sum-2',
          request_id: 'a',
          ok: true,
          latency_ms: 120,
          attempt: 2,
          final: true,
        }),
      ],
    });
    const text = await registry.metrics();
    expect(text).toContain('reach_route_queries_total{cache="miss"} 1');
    expect(text).toContain('reach_route_queries_total{cache="hit"} 1');
    expect(text).toContain('reach_calls_total{served_by="fallback"} 1');
    expect(text).toContain('reach_call_retries_bucket{le="1"} 1');
    expect(text).toContain(
      'reach_instance_outcomes_total{instance_id="sum-1",agent_name="summarizer",result="ack_timeout"} 1',
    );
    expect(text).toContain(
      'reach_instance_latency_seconds_count{instance_id="sum-2",agent_name="summarizer"} 1',
    );
    expect(text).toMatch(/reach_instance_success_rate\{instance_id="sum-1",agent_name="summarizer"\} 0\.818/);
    source.remove('sum-1');
    const after = await registry.metrics();
    expect(after).not.toContain('instance_id="sum-1"');
    router.close();
  });
});
