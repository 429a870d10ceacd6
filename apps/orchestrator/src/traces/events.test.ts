import { describe, expect, it } from 'vitest';
import { eventPayloadSchema, TRACE_EVENT_TYPES, TraceEventInput } from './events.js';

describe('trace events', () => {
  it("names the seed's event types, each with a schema in the union", () => {
    for (const type of [
      'trace_started',
      'plan_ready',
      'agents_bound',
      'capability_unavailable',
      'layer_started',
      'layer_finished',
      'node_started',
      'context_compacted',
      'node_input',
      'node_attempt_failed',
      'node_retry',
      'node_succeeded',
      'node_output',
      'node_failed',
      'trace_finished',
    ]) {
      expect(TRACE_EVENT_TYPES).toContain(type);
    }
    expect(TraceEventInput.options.map((o) => o.shape.type.value).sort()).toEqual(
      [...TRACE_EVENT_TYPES].sort(),
    );
  });

  it('requires the listed fields and keeps extra ones', () => {
    const layer = {
      type: 'layer_started',
      data: { layer: 0, nodes: ['n1', 'n2'], mode: 'parallel', extra: 1 },
    };
    expect(TraceEventInput.parse(layer)).toEqual(layer);
    expect(
      TraceEventInput.safeParse({ type: 'layer_started', data: { layer: -1, nodes: [], mode: 'parallel' } })
        .success,
    ).toBe(false);
    expect(
      TraceEventInput.safeParse({ type: 'node_output', data: { node_id: 'n1', chars: 2 } }).success,
    ).toBe(false);
    expect(TraceEventInput.safeParse({ type: 'nope', data: {} }).success).toBe(false);
  });

  it('accepts an error as text or as code and message', () => {
    const schema = eventPayloadSchema('node_attempt_failed');
    expect(schema.safeParse({ node_id: 'n1', attempt: 1, error: 'timeout' }).success).toBe(true);
    expect(
      schema.safeParse({ node_id: 'n1', attempt: 1, error: { code: 'TIMEOUT', message: 'slow' } }).success,
    ).toBe(true);
    expect(schema.safeParse({ node_id: 'n1', attempt: 0, error: 'x' }).success).toBe(false);
  });
});
