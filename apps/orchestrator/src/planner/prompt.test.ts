import { DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { catalogFromEntries } from '../plan/index.js';
import { planPrompt } from './prompt.js';

const CATALOG = catalogFromEntries(DEFAULT_CATALOG_ENTRIES);

describe('planPrompt', () => {
  it('lists the catalog, the live capabilities, the writing rule and the task', () => {
    const [system, user] = planPrompt(CATALOG, ['research', 'synthesis'], '设计一份生日派对策划');
    for (const c of DEFAULT_CATALOG_ENTRIES) expect(system!.content).toContain(`- ${c.id}: ${c.description}`);
    expect(system!.content).toContain('live agent right now: research, synthesis');
    expect(system!.content).toContain('写方案、策划、文案、报告一律 writing');
    expect(system!.content).toContain('"final_node"');
    expect(user).toEqual({ role: 'user', content: '设计一份生日派对策划' });
  });

  it('lists live capabilities with their card tags and examples, and names every coding capability', () => {
    const [system] = planPrompt(
      [
        ...CATALOG,
        {
          id: 'word_count',
          description: 'Counts the words of a text.',
          tags: ['word count', '字数'],
          examples: ['How many words are in this text?'],
          builtin: false,
          coding: false,
        },
        {
          id: 'sql_gen',
          description: 'Writes SQL.',
          tags: ['code'],
          examples: [],
          builtin: false,
          coding: true,
        },
      ],
      ['word_count'],
      'count the words',
    );
    expect(system!.content).toContain('- word_count: Counts the words of a text.');
    expect(system!.content).toContain('tags: word count, 字数');
    expect(system!.content).toContain('e.g. "How many words are in this text?"');
    expect(system!.content).toContain('implementation, sql_gen are ONLY for deliverables');
  });

  it('says so when liveness is unknown or nothing is live', () => {
    expect(planPrompt(CATALOG, undefined, 't')[0]!.content).toContain('unknown (assume all)');
    expect(planPrompt(CATALOG, [], 't')[0]!.content).toContain('right now: none');
  });
});
