import { DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { type CatalogCapability, catalogFromEntries, levels, normalizePlan } from '../plan/index.js';
import { sampleSkillCatalog } from '../testing/skill-catalog.js';
import { OfflinePlanner } from './offline-planner.js';

const catalog = catalogFromEntries(DEFAULT_CATALOG_ENTRIES);
const offline = new OfflinePlanner();
const planned = (task: string, available?: string[], cat: readonly CatalogCapability[] = catalog) => {
  const raw = offline.plan(task, { catalog: cat, available });
  const out = normalizePlan(raw, {
    catalog: cat.map((c) => c.id),
    available,
    task,
    coding: cat.filter((c) => c.coding).map((c) => c.id),
  });
  return { raw, ...out, caps: out.plan.nodes.map((n) => n.capability), levels: levels(out.plan) };
};

describe('OfflinePlanner', () => {
  it('V6: 设计一个用户下线接口 goes to implementation', () => {
    const out = planned('设计一个用户下线接口');
    expect(out.caps).toContain('implementation');
    expect(out.caps).not.toContain('writing');
    expect(out.warnings.filter((w) => w.includes('→ writing'))).toEqual([]);
  });

  it('V6: 设计一份生日派对策划 goes to writing', () => {
    const out = planned('设计一份生日派对策划');
    expect(out.caps).toContain('writing');
    expect(out.caps).not.toContain('implementation');
  });

  it('V6: an ambiguous "make" task is proposed as implementation and corrected to writing with a warning', () => {
    const out = planned('设计一个生日派对');
    expect(out.raw.nodes.map((n) => n.capability)).toContain('implementation');
    expect(out.caps).toContain('writing');
    expect(out.caps).not.toContain('implementation');
    expect(out.warnings.some((w) => w.includes('implementation → writing'))).toBe(true);
  });

  it('V6 in English', () => {
    expect(planned('Design a user logout endpoint').caps).toContain('implementation');
    expect(planned('Design a birthday party plan').caps).toContain('writing');
    const corrected = planned('Design a birthday party');
    expect(corrected.caps).toContain('writing');
    expect(corrected.warnings.some((w) => w.includes('implementation → writing'))).toBe(true);
  });

  it("lays out the seed's six-node task as research/planning, then build/review, then validation, then synthesis", () => {
    const out = planned('设计一个家庭局域网安全智能体发现系统，分析风险、查找证据并给出实现和验收方案');
    const byId = new Map(out.plan.nodes.map((n) => [n.id, n.capability]));
    expect(out.levels.map((layer) => layer.map((id) => byId.get(id)))).toEqual([
      ['research', 'planning'],
      ['implementation', 'security_review'],
      ['validation'],
      ['synthesis'],
    ]);
    expect(out.warnings).toEqual([]);
  });

  it('answers a plain question with research and synthesis', () => {
    expect(planned('什么是 SVCB 记录').caps).toEqual(['research', 'synthesis']);
  });

  it('keeps the deliverable without a live agent (an unavailable node), leaves out supporting steps without one', () => {
    const out = planned('设计一个用户下线接口并做安全审查', ['planning', 'synthesis']);
    expect(out.caps).toEqual(['planning', 'implementation', 'synthesis']);
    expect(out.warnings).toContain('n2: capability implementation has no live agent right now');
  });

  it('adds the default research step only when research has a live agent', () => {
    expect(planned('随便聊聊', ['synthesis']).caps).toEqual(['synthesis']);
    expect(planned('随便聊聊', ['research', 'synthesis']).caps).toEqual(['research', 'synthesis']);
  });

  it('is deterministic and writes purposes in the task language', () => {
    const a = offline.plan('Research DNS SVCB adoption', { catalog });
    expect(offline.plan('Research DNS SVCB adoption', { catalog })).toEqual(a);
    expect(a.nodes[0]!.purpose).toMatch(/^Collect facts/);
    expect(offline.plan('调研 SVCB 的采用情况', { catalog }).nodes[0]!.purpose).toMatch(/^收集/);
  });
});

describe('OfflinePlanner over a live catalog (BM25 over skill text)', () => {
  const live = sampleSkillCatalog();
  const ids = live.map((c) => c.id);
  const skillsOf = (task: string) =>
    planned(task, ids, live).caps.filter((c) => !catalog.some((b) => b.id === c));

  it.each([
    ['统计这段文字有多少个字：今天天气很好', ['word_count']],
    ['How many words are in this paragraph: the quick brown fox', ['word_count']],
    ['把这句话翻译成英文：你好世界', ['translate']],
    ['Convert 100 fahrenheit to celsius', ['unit_convert']],
    ['北京时间下午三点是伦敦几点', ['timezone']],
    ['给我的小狗起个名字', ['name_gen']],
    ['What is the exchange rate of EUR to JPY?', ['currency_rate']],
  ])('plans %s onto its capability', (task, expected) => {
    expect(skillsOf(task)).toEqual(expected);
  });

  it('picks no live capability for tasks the built-in seven cover', () => {
    expect(skillsOf('设计一份生日派对策划')).toEqual([]);
    expect(skillsOf('Design a user logout endpoint')).toEqual([]);
    expect(skillsOf('什么是 SVCB 记录')).toEqual([]);
  });

  it('never gives a coding capability to a task without a coding signal', () => {
    const coding = live.find((c) => c.id === 'sql_query')!;
    expect(coding.coding).toBe(true);
    expect(skillsOf('写一条统计每天订单数的 SQL 查询')).toContain('sql_query');
    // The same skill words without a coding signal: sql_query is not planned.
    expect(skillsOf('统计订单')).not.toContain('sql_query');
  });

  it('keeps a matched capability that has no live agent as a node of the plan', () => {
    const out = planned('统计这段文字有多少个字：你好', ['synthesis'], live);
    expect(out.caps).toEqual(['word_count', 'synthesis']);
    expect(out.warnings).toContain('n1: capability word_count has no live agent right now');
  });
});
