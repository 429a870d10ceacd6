import { describe, expect, it } from 'vitest';
import { compileCapabilityPattern, compileGrant } from './capability-pattern.js';

describe('capability patterns', () => {
  it('matches everything with *', () => {
    expect(compileCapabilityPattern('*')('summarize')).toBe(true);
  });

  it('matches a prefix with text_*', () => {
    const match = compileCapabilityPattern('text_*');
    expect(match('text_summarize')).toBe(true);
    expect(match('text_')).toBe(true);
    expect(match('translate')).toBe(false);
    expect(match('xtext_a')).toBe(false);
  });

  it('matches exact ids only exactly', () => {
    const match = compileCapabilityPattern('summarize');
    expect(match('summarize')).toBe(true);
    expect(match('summarize2')).toBe(false);
    expect(match('summariz')).toBe(false);
  });

  it('combines patterns of one grant', () => {
    const grant = compileGrant(['writing', 'text_*']);
    expect(grant('writing')).toBe(true);
    expect(grant('text_x')).toBe(true);
    expect(grant('planning')).toBe(false);
  });
});
