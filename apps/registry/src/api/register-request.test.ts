import { RegisterRequest } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { RegisterRequestParser } from './register-request.js';

const errorOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; data: unknown };
  }
  throw new Error('expected a refusal');
};

describe('RegisterRequestParser', () => {
  it('parses as RegisterRequest does, and a declaration text seen before gives the same declaration', () => {
    const parser = new RegisterRequestParser();
    const first = parser.parse(registerBody(8001));
    const second = parser.parse(registerBody(8002));
    expect(first).toEqual(RegisterRequest.parse(registerBody(8001)));
    expect(second).toEqual(RegisterRequest.parse(registerBody(8002)));
    expect(second.declaration).toBe(first.declaration);
    const other = parser.parse(registerBody(8003, { version: '2', change_reason: 'new' }));
    expect(other.declaration).not.toBe(first.declaration);
    expect(other.declaration.version).toBe('2');
  });

  it('still checks the rest of a body whose declaration is known, with the same errors', () => {
    const parser = new RegisterRequestParser();
    parser.parse(registerBody(8001));
    const bad = { ...registerBody(8001), endpoint: { host: '127.0.0.1', port: 0 } };
    const extra = { ...registerBody(8001), surprise: true };
    for (const body of [bad, extra, { ...registerBody(8001), card_sha256: 'short' }]) {
      const cached = errorOf(() => parser.parse(body));
      const fresh = errorOf(() => new RegisterRequestParser().parse(body));
      expect(cached.code).toBe('VALIDATION_FAILED');
      expect(cached.message).toBe(fresh.message);
      expect(cached.data).toEqual(fresh.data);
    }
  });

  it('never remembers an invalid declaration', () => {
    const parser = new RegisterRequestParser();
    const body = registerBody(8001, { priority: 101 });
    expect(errorOf(() => parser.parse(body)).code).toBe('VALIDATION_FAILED');
    expect(errorOf(() => parser.parse(body)).message).toContain('declaration.priority');
    expect(errorOf(() => parser.parse(null)).code).toBe('VALIDATION_FAILED');
    expect(errorOf(() => parser.parse({ declaration: 'x' })).code).toBe('VALIDATION_FAILED');
  });
});
