import { describe, expect, it } from 'vitest';
import { bearerToken, hashLeaseToken, leaseTokenMatches, newLeaseToken } from './lease-token.js';
import { TokenAuthority } from './token-authority.js';

describe('TokenAuthority', () => {
  const authority = new TokenAuthority([
    { name: 'text', token: 'text-token-123', capabilities: ['text_*', 'writing'] },
    { name: 'admin', token: 'admin-token-456', capabilities: ['*'] },
  ]);

  it('is open when no tokens are configured', () => {
    const open = new TokenAuthority([]);
    expect(open.open).toBe(true);
    expect(open.authorize(undefined, ['anything']).ok).toBe(true);
  });

  it('refuses a missing or unknown token with UNAUTHORIZED', () => {
    const missing = authority.authorize(undefined, ['writing']);
    expect(!missing.ok && missing.error.code).toBe('UNAUTHORIZED');
    const unknown = authority.authorize('Bearer nope-nope-nope', ['writing']);
    expect(!unknown.ok && unknown.error.code).toBe('UNAUTHORIZED');
    const malformed = authority.authorize('Basic text-token-123', ['writing']);
    expect(!malformed.ok && malformed.error.code).toBe('UNAUTHORIZED');
  });

  it('refuses capabilities outside the grant with FORBIDDEN naming them', () => {
    const result = authority.authorize('Bearer text-token-123', ['text_summarize', 'planning', 'writing']);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('FORBIDDEN');
      expect(result.error.data).toEqual({ refused: ['planning'] });
      expect(result.error.message).toContain('planning');
    }
  });

  it('allows capabilities inside the grant', () => {
    const result = authority.authorize('bearer text-token-123', ['text_summarize', 'writing']);
    expect(result).toEqual({ ok: true, value: { tokenName: 'text' } });
    expect(authority.authorize('Bearer admin-token-456', ['planning']).ok).toBe(true);
  });
});

describe('TokenAuthority rights and names', () => {
  const authority = new TokenAuthority([
    { name: 'trans', token: 'trans-token-123', capabilities: ['translate'], agentNames: ['trans-*'] },
    { name: 'caller', token: 'caller-token-123', capabilities: [], rights: ['report_outcomes'] },
  ]);

  it('refuses agent names outside the token’s patterns', () => {
    expect(authority.authorize('Bearer trans-token-123', ['translate'], 'trans-b').ok).toBe(true);
    const other = authority.authorize('Bearer trans-token-123', ['translate'], 'summarizer');
    expect(!other.ok && [other.error.code, other.error.data]).toEqual([
      'FORBIDDEN',
      { agent_name: 'summarizer' },
    ]);
  });

  it('checks the right each write needs', () => {
    expect(authority.authorizeOutcomes('Bearer caller-token-123')).toEqual({
      ok: true,
      value: { tokenName: 'caller' },
    });
    expect(authority.authorizeOutcomes('Bearer trans-token-123').ok).toBe(true);
    const noRight = authority.authorize('Bearer caller-token-123', [], 'x-agent');
    expect(!noRight.ok && noRight.error.code).toBe('FORBIDDEN');
    const none = authority.authorizeOutcomes(undefined);
    expect(!none.ok && none.error.code).toBe('UNAUTHORIZED');
    expect(new TokenAuthority([]).authorizeOutcomes(undefined)).toEqual({
      ok: true,
      value: { tokenName: null },
    });
  });
});

describe('lease tokens', () => {
  it('match only their own hash', () => {
    const token = newLeaseToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hash = hashLeaseToken(token);
    expect(leaseTokenMatches(token, hash)).toBe(true);
    expect(leaseTokenMatches(newLeaseToken(), hash)).toBe(false);
    expect(leaseTokenMatches(token, 'abcd')).toBe(false);
    expect(leaseTokenMatches(token, hash.toUpperCase())).toBe(true);
    expect(leaseTokenMatches(token, `${hash.slice(0, 63)}g`)).toBe(false);
  });

  it('are read from Bearer headers only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Token abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
