import { describe, expect, it } from 'vitest';
import { isReachError } from '../protocol/index.js';
import { type AgentRuntimeOptions, compileRuntimeOptions } from './runtime-options.js';

const base: AgentRuntimeOptions = {
  agentName: 'summarizer-v2',
  controlPlaneUrl: 'http://127.0.0.1:8701',
  capabilityFile: './declaration.json',
};

function keyOf(options: AgentRuntimeOptions): unknown {
  try {
    compileRuntimeOptions(options);
  } catch (error) {
    if (isReachError(error) && error.code === 'INVALID_CONFIG') return error.data?.key;
    throw error;
  }
  return null;
}

describe('compileRuntimeOptions', () => {
  it('applies the documented defaults and converts durations to milliseconds', () => {
    const o = compileRuntimeOptions({ ...base, executionTimeout: '2s', drainTimeout: 750 });
    expect(o).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      advertiseHost: '127.0.0.1',
      capacity: 16,
      executionTimeoutMs: 2000,
      drainTimeoutMs: 750,
      startTimeoutMs: undefined,
      backoff: { initialMs: 200, maxMs: 5000 },
      maxBodyBytes: 1_048_576,
      ledger: { maxEntries: 10_000, ttlMs: 600_000 },
    });
  });

  it('names the option that is wrong', () => {
    expect(keyOf({ ...base, controlPlaneUrl: 'ftp://registry' })).toBe('controlPlaneUrl');
    expect(keyOf({ ...base, port: 70_000 })).toBe('port');
    expect(keyOf({ ...base, executionTimeout: 'soon' })).toBe('executionTimeout');
    expect(keyOf({ ...base, declaration: { agent_name: 'x' } as never })).toBe('capabilityFile');
    expect(keyOf({ ...base, host: '0.0.0.0' })).toBe('advertiseHost');
    expect(keyOf({ ...base, host: 'localhost' })).toBe('advertiseHost');
    expect(keyOf({ ...base, host: '0.0.0.0', advertiseHost: '10.0.0.7' })).toBeNull();
    expect(keyOf({ ...base, registerBackoff: { initialMs: 500, maxMs: 100 } })).toBe('registerBackoff.maxMs');
  });
});
