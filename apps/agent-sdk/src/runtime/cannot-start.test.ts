import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReachError } from '../protocol/index.js';
import { exitCannotStart } from './cannot-start.js';

afterEach(() => vi.restoreAllMocks());

describe('exitCannotStart', () => {
  it('logs the code and message through the logger, then exits 1', () => {
    const lines: unknown[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string, f?: object) => lines.push([m, f]) };
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('exited');
    }) as never);
    const error = new ReachError('INVALID_DECLARATION', 'capabilities.spin.constraints: bad');
    expect(() => exitCannotStart(error, logger)).toThrow('exited');
    expect(exit).toHaveBeenCalledWith(1);
    expect(lines).toEqual([
      [
        'cannot start: INVALID_DECLARATION: capabilities.spin.constraints: bad',
        { code: 'INVALID_DECLARATION' },
      ],
    ]);
  });
});
