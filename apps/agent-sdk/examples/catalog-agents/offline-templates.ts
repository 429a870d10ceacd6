import { clauses, isChinese, leadLines, type TaskInput } from './task-input.js';

type Lang = 'zh' | 'en';
const pick = (lang: Lang, zh: string, en: string) => (lang === 'zh' ? zh : en);

/** Risks the offline reviewer names when the task mentions a topic: [pattern, zh, en]. */
const RISKS: Array<[RegExp, string, string]> = [
  [
    /接口|api|endpoint|服务|service/i,
    '未鉴权或越权调用接口；缺少速率限制',
    'unauthenticated or over-privileged calls; no rate limit',
  ],
  [
    /登录|下线|会话|令牌|认证|session|token|auth|logout|login/i,
    '会话或令牌吊销不彻底，可被重放',
    'sessions or tokens not fully revoked and replayable',
  ],
  [
    /网络|局域网|dns|发现|network|discovery/i,
    '伪造的服务记录或 DNS 欺骗把调用引向恶意端点',
    'forged service records or DNS spoofing redirect calls',
  ],
  [
    /数据|用户|存储|隐私|data|user|storage|privacy/i,
    '个人数据泄露或越权读取',
    'personal data leaks or unauthorised reads',
  ],
  [
    /派对|活动|聚会|生日|party|event|birthday/i,
    '场地安全、食物过敏与人员拥挤',
    'venue safety, food allergies and crowding',
  ],
];

function header(lang: Lang, title: string, input: TaskInput): string[] {
  const lines = [`## ${title}`, `${pick(lang, '任务', 'Task')}: ${input.task}`];
  if (input.purpose) lines.push(`${pick(lang, '本节点目的', 'Purpose of this step')}: ${input.purpose}`);
  return lines;
}

function upstreamNotes(lang: Lang, input: TaskInput): string[] {
  if (input.context.length === 0) return [`- ${pick(lang, '无上游上下文', 'no upstream context')}`];
  return input.context.map((p) => `- ${p.node_id} · ${p.capability}: ${leadLines(p.text, 1)[0] ?? ''}`);
}

const NOTE: Record<Lang, string> = {
  zh: '（离线演示模型：按任务原文与上游上下文确定性生成，未调用大模型。）',
  en: '(Offline demo model: generated deterministically from the task and upstream context; no LLM was called.)',
};

function planning(lang: Lang, input: TaskInput): string[] {
  const steps = clauses(input.task).map(
    (c, i) =>
      `${i + 1}. ${c} — ${pick(lang, '明确输入、产出与负责人', 'define inputs, outputs and an owner')}`,
  );
  return [
    ...header(lang, pick(lang, '执行计划', 'Plan'), input),
    '',
    pick(lang, '步骤：', 'Steps:'),
    ...steps,
    `${steps.length + 1}. ${pick(lang, '合并产出，按验收标准检查', 'merge the outputs and check them against the acceptance criteria')}`,
    '',
    pick(
      lang,
      '关键决定：互不依赖的步骤并行推进；每一步都留下可检查的产出。',
      'Key decisions: independent steps run in parallel; every step leaves a checkable output.',
    ),
  ];
}

function research(lang: Lang, input: TaskInput): string[] {
  return [
    ...header(lang, pick(lang, '调研要点', 'Research notes'), input),
    '',
    pick(lang, '需要查证的问题：', 'Questions to verify:'),
    ...clauses(input.task).map(
      (c) =>
        `- ${pick(lang, `「${c}」的现有做法、约束与先例是什么？`, `What are the existing practices, limits and precedents for "${c}"?`)}`,
    ),
    '',
    pick(lang, '已知上下文：', 'Known context:'),
    ...upstreamNotes(lang, input),
    '',
    pick(
      lang,
      '说明：离线模型不访问外部资料，以上是待查证清单，不是结论。',
      'Note: the offline model reads no external sources; this is a checklist, not findings.',
    ),
  ];
}

function securityReview(lang: Lang, input: TaskInput): string[] {
  const hits = RISKS.filter(([re]) => re.test(input.task)).map(([, zh, en]) => pick(lang, zh, en));
  const generic = pick(
    lang,
    '输入未校验、日志与审计缺失、密钥管理不当',
    'unvalidated input, missing audit logs, poor secret handling',
  );
  return [
    ...header(lang, pick(lang, '安全审查', 'Security review'), input),
    '',
    pick(lang, '风险：', 'Risks:'),
    ...[...hits, generic].map(
      (r, i) =>
        `${i + 1}. ${r} — ${pick(lang, i < hits.length ? '高' : '中', i < hits.length ? 'high' : 'medium')}`,
    ),
    '',
    pick(
      lang,
      '缓解：每个风险指定负责人与检查方法，上线前复核。',
      'Mitigation: give each risk an owner and a check, and review before release.',
    ),
  ];
}

function validation(lang: Lang, input: TaskInput): string[] {
  return [
    ...header(lang, pick(lang, '验收标准', 'Acceptance criteria'), input),
    '',
    ...clauses(input.task).map(
      (c, i) =>
        `- [ ] ${pick(lang, `验收 ${i + 1}：「${c}」已完成，并有可检查的产出`, `Check ${i + 1}: "${c}" is done and has a checkable output`)}`,
    ),
    `- [ ] ${pick(lang, '上游指出的风险都有对应的检查', 'every risk raised upstream has a matching check')}`,
  ];
}

function implementation(lang: Lang, input: TaskInput): string[] {
  const steps = clauses(input.task).map((c) => `  ${JSON.stringify(c)},`);
  return [
    ...header(lang, pick(lang, '实现', 'Implementation'), input),
    '',
    '```ts',
    `// ${pick(lang, '每个要求对应一个必须完成的步骤；缺少任何一步都会被拒绝。', 'Each requirement is a step that must be completed; a missing step is refused.')}`,
    'export const REQUIREMENTS = [',
    ...steps,
    '] as const;',
    '',
    'export type Requirement = (typeof REQUIREMENTS)[number];',
    '',
    'export function checkCompleted(done: ReadonlySet<string>): { ok: boolean; missing: Requirement[] } {',
    '  const missing = REQUIREMENTS.filter((r) => !done.has(r));',
    '  return { ok: missing.length === 0, missing };',
    '}',
    '```',
  ];
}

function writing(lang: Lang, input: TaskInput): string[] {
  const sections = clauses(input.task).flatMap((c, i) => [
    `### ${i + 1}. ${c}`,
    pick(lang, `围绕「${c}」：做法、负责人与完成时间。`, `For "${c}": approach, owner and due date.`),
  ]);
  return [
    `# ${input.task}`,
    '',
    `## ${pick(lang, '背景', 'Background')}`,
    input.purpose || pick(lang, '按任务要求撰写的方案正文。', 'The deliverable text the task asks for.'),
    '',
    `## ${pick(lang, '方案', 'Proposal')}`,
    ...sections,
    '',
    `## ${pick(lang, '参考的上游材料', 'Upstream material used')}`,
    ...upstreamNotes(lang, input),
    '',
    `## ${pick(lang, '结论', 'Conclusion')}`,
    pick(
      lang,
      '按以上各节推进，完成后按验收标准逐条检查。',
      'Proceed section by section, then check every acceptance criterion.',
    ),
  ];
}

function synthesis(lang: Lang, input: TaskInput): string[] {
  const merged = input.context.flatMap((p) => [
    `### ${p.node_id} · ${p.capability}`,
    ...leadLines(p.text, 3),
    '',
  ]);
  return [
    `## ${pick(lang, '最终答复', 'Final answer')}`,
    `${pick(lang, '任务', 'Task')}: ${input.task}`,
    pick(
      lang,
      `综合了 ${input.context.length} 个上游节点的输出：`,
      `Merged the output of ${input.context.length} upstream steps:`,
    ),
    '',
    ...merged,
    pick(
      lang,
      '结论：以上各部分已合并；交付物正文附在后面。',
      'Conclusion: the parts above are merged; the deliverable text follows.',
    ),
  ];
}

const BY_CAPABILITY: Record<string, (lang: Lang, input: TaskInput) => string[]> = {
  planning,
  research,
  security_review: securityReview,
  validation,
  implementation,
  writing,
  synthesis,
};

/** The offline answer for a capability, in the task's language; unknown capabilities throw. */
export function offlineAnswer(capability: string, input: TaskInput): string {
  const template = BY_CAPABILITY[capability];
  if (template === undefined) throw new TypeError(`no offline template for capability ${capability}`);
  const lang: Lang = isChinese(input.task) ? 'zh' : 'en';
  return [...template(lang, input), '', NOTE[lang]].join('\n');
}
