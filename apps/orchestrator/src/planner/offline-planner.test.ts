import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { levels, normalizePlan } from '../plan/index.js';
import { OfflinePlanner } from './offline-planner.js';

const catalog = [...DEFAULT_CATALOG];
const offline = new OfflinePlanner();
const planned = (task: string, available?: string[]) => {
  const raw = offline.plan(task, { catalog, available });
  const out = normalizePlan(raw, { catalog, available, task });
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

  it('leaves out capabilities without a live agent', () => {
    const out = planned('设计一个用户下线接口并做安全审查', ['planning', 'synthesis']);
    expect(out.caps).toEqual(['planning', 'synthesis']);
  });

  it('is deterministic and writes purposes in the task language', () => {
    const a = offline.plan('Research DNS SVCB adoption', { catalog });
    expect(offline.plan('Research DNS SVCB adoption', { catalog })).toEqual(a);
    expect(a.nodes[0]!.purpose).toMatch(/^Collect facts/);
    expect(offline.plan('调研 SVCB 的采用情况', { catalog }).nodes[0]!.purpose).toMatch(/^收集/);
  });
});
