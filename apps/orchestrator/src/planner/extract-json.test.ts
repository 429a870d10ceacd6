import { describe, expect, it } from 'vitest';
import { extractJson } from './extract-json.js';

describe('extractJson', () => {
  it('reads a fenced json block with trailing commas', () => {
    const text = 'Here you go:\n```json\n{"nodes": [{"id": "n1",},],}\n```\nthanks {not json}';
    expect(extractJson(text)).toEqual({ ok: true, value: { nodes: [{ id: 'n1' }] } });
  });

  it('reads a bare fence', () => {
    expect(extractJson('```\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('falls back to the first { to the last } around prose', () => {
    expect(extractJson('Plan: {"a": {"b": [1, 2,]}} — done')).toEqual({
      ok: true,
      value: { a: { b: [1, 2] } },
    });
  });

  it('falls back to braces when the fence holds no JSON', () => {
    expect(extractJson('```json\nnope\n``` then {"a": 2}')).toEqual({ ok: true, value: { a: 2 } });
  });

  it.each(['garbage', '', '} backwards {', '{"a": }'])('reports INVALID_JSON for %j', (text) => {
    const out = extractJson(text);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.code).toBe('INVALID_JSON');
  });
});
