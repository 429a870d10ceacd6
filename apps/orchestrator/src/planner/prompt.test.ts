import { DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { planPrompt } from './prompt.js';

describe('planPrompt', () => {
  it('lists the catalog, the live capabilities, the writing rule and the task', () => {
    const [system, user] = planPrompt(
      DEFAULT_CATALOG_ENTRIES,
      ['research', 'synthesis'],
      '设计一份生日派对策划',
    );
    for (const c of DEFAULT_CATALOG_ENTRIES) expect(system!.content).toContain(`- ${c.id}: ${c.description}`);
    expect(system!.content).toContain('live agent right now: research, synthesis');
    expect(system!.content).toContain('写方案、策划、文案、报告一律 writing');
    expect(system!.content).toContain('"final_node"');
    expect(user).toEqual({ role: 'user', content: '设计一份生日派对策划' });
  });

  it('says so when liveness is unknown or nothing is live', () => {
    expect(planPrompt(DEFAULT_CATALOG_ENTRIES, undefined, 't')[0]!.content).toContain('unknown (assume all)');
    expect(planPrompt(DEFAULT_CATALOG_ENTRIES, [], 't')[0]!.content).toContain('right now: none');
  });
});
