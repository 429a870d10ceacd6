import { describe, expect, it } from 'vitest';
import {
  CONTEXT_BUDGET_TOKENS,
  CONTEXT_PER_NODE_TOKENS,
  compactContext,
  MIN_NODE_CHARS,
  renderContext,
  type UpstreamOutput,
} from './compact.js';
import { charCount, estimateTokens } from './tokens.js';
import { truncateToTokens } from './truncate.js';

const han = (n: number, seed = 0) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i + seed) % 20000))).join('');
const up = (node_id: string, capability: string, output: string): UpstreamOutput => ({
  node_id,
  capability,
  output,
});

describe('compactContext', () => {
  it('passes small context through untouched', () => {
    const out = compactContext([up('n1', 'research', '事实'), up('n2', 'planning', 'steps')]);
    expect(out.items.map((i) => i.text)).toEqual(['事实', 'steps']);
    expect(out.compaction).toMatchObject({ dropped: [], truncated: [], original_chars: 7, kept_chars: 7 });
    expect(out.compaction.over_budget_due_to_deliverable).toBe(false);
  });

  it(`cuts each ordinary node to ${CONTEXT_PER_NODE_TOKENS} tokens, head and tail kept`, () => {
    const long = han(2000);
    const out = compactContext([up('n1', 'research', long)]);
    const item = out.items[0]!;
    expect(estimateTokens(item.text)).toBeLessThanOrEqual(CONTEXT_PER_NODE_TOKENS);
    expect(item.text).toContain('已截断');
    expect(long.startsWith(item.text.slice(0, 100))).toBe(true);
    expect(long.endsWith(item.text.slice(-20))).toBe(true);
    expect(item).toMatchObject({ truncated: true, original_chars: 2000, preserved: false });
    expect(out.compaction.truncated).toEqual(['n1']);
  });

  it('caps deliverables at the whole budget instead: a 2400-character plan stays whole', () => {
    const plan = han(2400);
    const out = compactContext([up('n1', 'writing', plan)]);
    expect(out.items[0]!.text).toBe(plan);
    const huge = compactContext([up('n2', 'implementation', 'x'.repeat(20_000))]);
    expect(estimateTokens(huge.items[0]!.text)).toBeLessThanOrEqual(CONTEXT_BUDGET_TOKENS);
    expect(estimateTokens(huge.items[0]!.text)).toBeGreaterThan(CONTEXT_BUDGET_TOKENS - 10);
  });

  it('over the total, shrinks the longest ordinary node to 60 % first', () => {
    // Seven ordinary nodes at the per-node cap: 7 × ~320 > 1800.
    const nodes = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) =>
      up(id, 'research', han(i === 3 ? 900 : 560, i)),
    );
    const out = compactContext(nodes);
    expect(out.compaction.dropped).toEqual([]);
    expect(out.compaction.estimated_tokens).toBeLessThanOrEqual(CONTEXT_BUDGET_TOKENS);
    // d was the longest after the per-node cut, then the earliest of the equal rest; e, f, g were never touched.
    const shrunk = out.items.filter((i) => i.kept_chars < 560).map((i) => i.node_id);
    expect(shrunk).toEqual(['a', 'b', 'd']);
    const dCut = charCount(truncateToTokens(nodes[3]!.output, CONTEXT_PER_NODE_TOKENS));
    expect(out.items.find((i) => i.node_id === 'd')!.kept_chars).toBe(Math.floor(dCut * 0.6));
    expect(out.items.every((i) => i.kept_chars > MIN_NODE_CHARS)).toBe(true);
  });

  it('drops the earliest ordinary nodes once all are down to 120 characters', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((id, i) => up(id, 'research', han(300, i)));
    const out = compactContext(nodes, { budgetTokens: 200 });
    expect(out.compaction.dropped).toEqual(['a', 'b']);
    expect(out.items.map((i) => i.node_id)).toEqual(['c', 'd', 'e']);
    expect(out.items.every((i) => i.kept_chars === MIN_NODE_CHARS)).toBe(true);
    expect(out.compaction.estimated_tokens).toBeLessThanOrEqual(200);
  });

  it('compacts deliverables last and never drops them, flagging the overrun', () => {
    const nodes = [
      up('r', 'research', han(400)),
      up('w', 'writing', han(600, 7)),
      up('i', 'implementation', 'y'.repeat(900)),
    ];
    const out = compactContext(nodes, { budgetTokens: 400, perNodeTokens: 200 });
    expect(out.compaction.dropped).toEqual(['r']);
    expect(
      out.items.map((i) => [i.node_id, i.text === nodes.find((n) => n.node_id === i.node_id)!.output]),
    ).toEqual([
      ['w', true],
      ['i', true],
    ]);
    expect(out.compaction.estimated_tokens).toBeGreaterThan(400);
    expect(out.compaction.over_budget_due_to_deliverable).toBe(true);
  });

  it('shrinks ordinary nodes before touching a longer deliverable', () => {
    const nodes = [up('r', 'research', han(500)), up('w', 'writing', han(1500, 3))];
    const out = compactContext(nodes, { budgetTokens: 900 });
    const [r, w] = out.items;
    expect(w!.text).toBe(nodes[1]!.output);
    expect(r!.kept_chars).toBeLessThan(500);
    expect(out.compaction.estimated_tokens).toBeLessThanOrEqual(900);
    expect(out.compaction.over_budget_due_to_deliverable).toBe(false);
  });

  it('reports original and kept characters', () => {
    const out = compactContext([up('a', 'research', han(2000)), up('b', 'writing', 'ok')]);
    expect(out.compaction.original_chars).toBe(2002);
    expect(out.compaction.kept_chars).toBe(out.items.reduce((s, i) => s + charCount(i.text), 0));
  });

  it('renders one heading per kept node', () => {
    const out = compactContext([up('n1', 'research', '事实'), up('n2', 'writing', '正文')]);
    expect(renderContext(out.items)).toBe('### n1 · research\n事实\n\n### n2 · writing\n正文');
  });
});
