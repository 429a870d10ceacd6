import { describe, expect, it } from 'vitest';
import { sampleSkillCatalog } from '../testing/skill-catalog.js';
import { matchSkills, SkillIndex } from './skill-ranker.js';
import { skillTerms } from './skill-tokens.js';

describe('skillTerms', () => {
  it('segments Chinese into words and pairs, English into stemmed words, without stop words', () => {
    expect(skillTerms('统计这段文字有多少个字')).toEqual(['统计', '段', '文字', '多少个', '少个', '字']);
    expect(skillTerms('Counting the words of word_count')).toEqual(['count', 'word', 'word', 'count']);
  });
});

describe('matchSkills', () => {
  const catalog = sampleSkillCatalog();

  it('ranks the capability whose examples match first, in both languages', () => {
    const index = new SkillIndex(catalog);
    expect(index.rank('把这句话翻译成英文')[0]!.id).toBe('translate');
    expect(index.rank('Translate this sentence to English')[0]!.id).toBe('translate');
  });

  it('picks nothing below the absolute score, and nothing when a built-in is the clear match', () => {
    expect(matchSkills('统计订单', catalog).map((m) => m.id)).toEqual(['sql_query']);
    expect(matchSkills('Write a report on the history of the printing press', catalog)).toEqual([]);
    expect(matchSkills('hello', catalog)).toEqual([]);
  });

  it('has nothing to pick from a catalog of built-ins only', () => {
    expect(matchSkills('统计这段文字有多少个字', sampleSkillCatalog(0))).toEqual([]);
  });
});
