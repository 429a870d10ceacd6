import { describe, expect, it } from 'vitest';
import { assembleDeliverable, deliverableMarker, type NodeOutcome, runStatus } from './assemble.js';

const o = (
  node_id: string,
  capability: string,
  status: NodeOutcome['status'],
  output?: string,
): NodeOutcome => ({
  node_id,
  capability,
  status,
  output,
});

describe('assembleDeliverable', () => {
  it('puts the synthesis first and appends every writing and implementation output in full', () => {
    const outcomes = [
      o('n1', 'research', 'succeeded', '事实'),
      o('n2', 'writing', 'succeeded', '完整的派对方案'),
      o('n3', 'implementation', 'succeeded', 'export const x = 1;'),
      o('n4', 'synthesis', 'succeeded', '摘要'),
    ];
    expect(assembleDeliverable(outcomes, 'n4')).toBe(
      [
        '摘要',
        `${deliverableMarker('n2', 'writing')}\n完整的派对方案`,
        `${deliverableMarker('n3', 'implementation')}\nexport const x = 1;`,
      ].join('\n\n'),
    );
    expect(deliverableMarker('n2', 'writing')).toBe('<!-- 交付物正文 · n2 · writing -->');
  });

  it('skips failed deliverables', () => {
    const out = assembleDeliverable(
      [o('n1', 'writing', 'failed'), o('n2', 'synthesis', 'succeeded', 'S')],
      'n2',
    );
    expect(out).toBe('S');
  });

  it('hands over every successful output when the final node failed', () => {
    const out = assembleDeliverable(
      [
        o('n1', 'research', 'succeeded', 'R'),
        o('n2', 'writing', 'succeeded', 'W'),
        o('n3', 'synthesis', 'failed'),
      ],
      'n3',
    );
    expect(out).toContain('n3 未成功');
    expect(out).toContain('<!-- 节点输出 · n1 · research -->\nR');
    expect(out).toContain(`${deliverableMarker('n2', 'writing')}\nW`);
  });
});

describe('runStatus', () => {
  it('is ok when everything succeeded', () => {
    expect(runStatus([o('n1', 'research', 'succeeded'), o('n2', 'synthesis', 'succeeded')], 'n2')).toBe('ok');
  });

  it('is degraded when any node failed but the final succeeded', () => {
    expect(runStatus([o('n1', 'research', 'failed'), o('n2', 'synthesis', 'succeeded')], 'n2')).toBe(
      'degraded',
    );
    expect(runStatus([o('n1', 'research', 'unavailable'), o('n2', 'synthesis', 'succeeded')], 'n2')).toBe(
      'degraded',
    );
  });

  it('is degraded when the final failed but others succeeded', () => {
    expect(runStatus([o('n1', 'research', 'succeeded'), o('n2', 'synthesis', 'failed')], 'n2')).toBe(
      'degraded',
    );
  });

  it('is failed when the final failed and nothing succeeded', () => {
    expect(runStatus([o('n1', 'research', 'failed'), o('n2', 'synthesis', 'failed')], 'n2')).toBe('failed');
    expect(runStatus([], 'n1')).toBe('failed');
  });
});

describe('assembleDeliverable: what is missing', () => {
  it('names every capability that did not deliver, in Chinese and English', () => {
    const text = assembleDeliverable(
      [
        { node_id: 'n1', capability: 'word_count', status: 'unavailable', output: null },
        { node_id: 'n2', capability: 'synthesis', status: 'succeeded', output: 'done' },
      ],
      'n2',
      [{ node_id: 'n1', capability: 'word_count', reason: 'no_dns_record' }],
    );
    expect(text.startsWith('done')).toBe(true);
    expect(text).toContain('<!-- 缺少能力 · missing capabilities · word_count -->');
    expect(text).toContain('Missing: no live agent answered for word_count (n1: no_dns_record)');
  });

  it('adds nothing when nothing is missing', () => {
    const outcomes = [
      { node_id: 'n1', capability: 'synthesis', status: 'succeeded' as const, output: 'done' },
    ];
    expect(assembleDeliverable(outcomes, 'n1', [])).toBe('done');
  });
});
