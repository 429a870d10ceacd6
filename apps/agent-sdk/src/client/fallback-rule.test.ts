import { describe, expect, it } from 'vitest';
import { mayMoveOn } from './fallback-rule.js';

describe('mayMoveOn', () => {
  it('always moves on before the ack, even for non-idempotent operations past the deadline', () => {
    expect(mayMoveOn({ failure: 'connect', acked: false }, { idempotent: false, remainingMs: 0 })).toBe(true);
    expect(mayMoveOn({ failure: 'ack_timeout', acked: false }, { idempotent: false })).toBe(true);
  });

  it('never moves on after a cancel, an aborted caller or with fallback off', () => {
    expect(mayMoveOn({ failure: 'cancelled', acked: false }, { idempotent: true })).toBe(false);
    expect(mayMoveOn({ failure: 'connect', acked: false }, { idempotent: true, aborted: true })).toBe(false);
    expect(
      mayMoveOn({ failure: 'connect', acked: false }, { idempotent: true, fallbackEnabled: false }),
    ).toBe(false);
  });

  it('after the ack moves on only for idempotent operations, a non-final error and time left', () => {
    const failed = { failure: 'execution_timeout', acked: true } as const;
    expect(mayMoveOn(failed, { idempotent: true })).toBe(true);
    expect(mayMoveOn(failed, { idempotent: true, remainingMs: 5 })).toBe(true);
    expect(mayMoveOn(failed, { idempotent: false })).toBe(false);
    expect(mayMoveOn(failed, { idempotent: true, remainingMs: 0 })).toBe(false);
    expect(mayMoveOn({ ...failed, retryable: false }, { idempotent: true })).toBe(false);
    expect(mayMoveOn({ ...failed, retryable: true }, { idempotent: true })).toBe(true);
  });
});
