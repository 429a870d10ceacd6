import { describe, expect, it } from 'vitest';
import { hasCodingSignal, hasWritingSignal } from './deliverable-kind.js';

describe('deliverable kind signals', () => {
  it.each([
    '设计一个用户下线接口',
    '写一个备份数据库的脚本',
    '实现登录函数',
    'Design a logout endpoint for users',
    'Write a bash script that rotates logs',
    'Add the REST API for orders',
    'Change the nginx config',
  ])('sees code in %s', (text) => {
    expect(hasCodingSignal(text)).toBe(true);
  });

  it.each([
    '设计一份生日派对策划',
    '写一篇关于春天的文章',
    'Draft a birthday party plan',
    'Write the launch copy for our newsletter',
    'A capital-city travel itinerary', // "capital" must not count as "api"
  ])('sees no code in %s', (text) => {
    expect(hasCodingSignal(text)).toBe(false);
  });

  it.each([
    '设计一份生日派对策划',
    '写一份季度报告',
    'Write a proposal for the new office',
    'Prepare a report on churn',
  ])('sees prose in %s', (text) => {
    expect(hasWritingSignal(text)).toBe(true);
  });

  it('sees no prose in a pure coding task', () => {
    expect(hasWritingSignal('实现用户下线接口')).toBe(false);
    expect(hasWritingSignal('implement the logout endpoint')).toBe(false);
  });
});
