import { hasCodingSignal, hasWritingSignal } from '../deliverables/index.js';
import type { CatalogCapability } from '../plan/catalog.js';
import type { RawPlan } from '../plan/index.js';
import { matchSkills } from './skill-ranker.js';

/** Words that call for each analytical capability, in Chinese and English. */
const KEYWORDS: Record<
  'research' | 'planning' | 'security_review' | 'validation',
  { cjk: string[]; en: RegExp }
> = {
  research: {
    cjk: ['调研', '研究', '查找', '证据', '资料', '分析', '对比', '比较', '现状', '调查', '为什么', '是什么'],
    en: /\b(research|evidence|investigat\w*|analy[sz]\w*|compare|comparison|sources?|facts?|survey|why|what is)\b/i,
  },
  planning: {
    cjk: ['计划', '步骤', '规划', '拆解', '路线', '里程碑', '安排', '设计', '架构', '流程'],
    en: /\b(plan|planning|steps?|roadmap|milestones?|schedule|design|architecture|workflow)\b/i,
  },
  security_review: {
    cjk: ['安全', '风险', '漏洞', '威胁', '隐私', '权限', '攻击', '合规', '鉴权'],
    en: /\b(security|secure|risks?|vulnerab\w*|threats?|privacy|attacks?|auth\w*|compliance)\b/i,
  },
  validation: {
    cjk: ['验收', '测试', '验证', '校验', '检查', '评估', '标准'],
    en: /\b(tests?|testing|verify|validat\w*|acceptance|check|qa|criteria)\b/i,
  },
};

/** Verbs that ask for something to be made, when the words do not say whether it is code or prose. */
const MAKE_CJK = ['设计', '制作', '创建', '搭建', '构建', '编写', '写', '做', '生成', '起草'];
const MAKE_EN = /\b(design|build|create|make|write|develop|draft|produce|prepare)\b/i;

const matches = (task: string, k: { cjk: string[]; en: RegExp }) =>
  k.cjk.some((w) => task.includes(w)) || k.en.test(task);
const isMostlyCjk = (text: string) =>
  (text.match(/[\u3400-\u9fff]/g)?.length ?? 0) * 2 >= text.replace(/\s/g, '').length;

/** Options the offline planner honours. */
export interface OfflinePlanOptions {
  /** The live catalog: the built-in seven, config's entries and every capability agents publish. */
  catalog: readonly CatalogCapability[];
  /**
   * Capabilities with a live agent now. The deliverable a task asks for (writing, implementation, a
   * matched live skill) is planned even without one — it becomes an unavailable node, never a silent
   * drop; the supporting steps the keyword table adds (research, planning, review, validation) need one.
   */
  available?: readonly string[];
}

/**
 * The deterministic planner used when no model provider is configured. The built-in seven are picked
 * by a keyword table; every other capability by ranking its skill text (description, tags, examples)
 * against the task with BM25, in Chinese and English. Research and planning run first side by side,
 * then the deliverables (the made thing and the matched skills) and the review, then validation, then
 * synthesis. Whether a made thing is code or prose is left to `normalizePlan`.
 */
export class OfflinePlanner {
  /** Plans `task` from its words alone. */
  plan(task: string, options: OfflinePlanOptions): RawPlan {
    const known = new Map(options.catalog.map((c) => [c.id, c]));
    const inCatalog = (cap: string) => known.has(cap);
    const live = (cap: string) => options.available === undefined || options.available.includes(cap);
    const coding = hasCodingSignal(task);
    const skills = matchSkills(task, options.catalog)
      .map((m) => m.id)
      .filter((id) => coding || !known.get(id)!.coding);
    const deliverable = this.#deliverable(task);
    const want = (cap: keyof typeof KEYWORDS) => inCatalog(cap) && live(cap) && matches(task, KEYWORDS[cap]);
    // A matched skill is the deliverable; a vague "make" verb beside it does not add another one.
    const hasDeliverable =
      deliverable !== null && inCatalog(deliverable) && (skills.length === 0 || this.#explicit(task));
    const analytical = (['planning', 'security_review', 'validation'] as const).some(want);
    const first = [
      ...(want('research') ||
      (!analytical && !hasDeliverable && skills.length === 0 && inCatalog('research') && live('research'))
        ? ['research']
        : []),
      ...(want('planning') ? ['planning'] : []),
    ];
    const second = [
      ...(hasDeliverable ? [deliverable] : []),
      ...skills,
      ...(want('security_review') ? ['security_review'] : []),
    ];
    const third = want('validation') ? ['validation'] : [];

    const zh = isMostlyCjk(task);
    const subject = task.trim().slice(0, 200);
    const nodes: RawPlan['nodes'] = [];
    const add = (capability: string, depends_on: string[], group: number) => {
      const id = `n${nodes.length + 1}`;
      nodes.push({
        id,
        capability,
        depends_on,
        parallel_group: `g${group}`,
        purpose: purpose(capability, subject, zh),
      });
      return id;
    };
    const l0 = first.map((c) => add(c, [], 1));
    const l1 = second.map((c) => add(c, l0, 2));
    const made = l1.filter((_, i) => second[i] !== 'security_review');
    const l2 = third.map((c) => add(c, made.length ? made : l0, 3));
    const final = add('synthesis', [...l0, ...l1, ...l2], 4);
    return {
      intent: subject.slice(0, 30),
      nodes,
      final_node: final,
      reasoning: `offline planner: ${nodes.map((n) => n.capability).join(' → ')} from the task's words`,
    };
  }

  /** Whether the task itself says code or prose (not only a vague "make"). */
  #explicit(task: string): boolean {
    return hasCodingSignal(task) || hasWritingSignal(task);
  }

  #deliverable(task: string): 'implementation' | 'writing' | null {
    if (hasCodingSignal(task)) return 'implementation';
    if (hasWritingSignal(task)) return 'writing';
    // Ambiguous "make something": say implementation and let the normaliser's one rule decide.
    if (MAKE_CJK.some((w) => task.includes(w)) || MAKE_EN.test(task)) return 'implementation';
    return null;
  }
}

function purpose(capability: string, subject: string, zh: boolean): string {
  const zhText: Record<string, string> = {
    research: `收集与「${subject}」相关的事实、资料与依据`,
    planning: `拆解「${subject}」，列出步骤与关键决定`,
    security_review: `找出「${subject}」的风险与安全隐患`,
    validation: `为「${subject}」定义并检查验收标准`,
    implementation: subject,
    writing: subject,
    synthesis: '合并以上输出，给出最终答案',
  };
  const enText: Record<string, string> = {
    research: `Collect facts, sources and evidence for: ${subject}`,
    planning: `Break down the steps and key decisions for: ${subject}`,
    security_review: `Find the risks and security weaknesses of: ${subject}`,
    validation: `Define and check the acceptance criteria for: ${subject}`,
    implementation: subject,
    writing: subject,
    synthesis: 'Merge the outputs above into one final answer',
  };
  return (zh ? zhText : enText)[capability] ?? subject;
}
