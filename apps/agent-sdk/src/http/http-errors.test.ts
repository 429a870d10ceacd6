import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ReachError } from '../protocol/errors.js';
import { createErrorHandler, requestIdFrom } from './http-errors.js';
import { parseOrThrow, readJson } from './http-input.js';

function app() {
  const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const hono = new Hono();
  hono.get('/reach', () => {
    throw new ReachError('STALE_HEARTBEAT', 'old seq', { data: { last_seq: 4 } });
  });
  hono.get('/unknown', () => {
    throw new TypeError('cannot read x of undefined');
  });
  hono.get('/internal-data', () => {
    throw new ReachError('INTERNAL', 'internal error', { data: { secret: 'k' } });
  });
  hono.get('/http/:status', (c) => {
    throw new HTTPException(Number(c.req.param('status')) as 401, { message: 'from hono' });
  });
  hono.post('/json', async (c) =>
    c.json(parseOrThrow(z.object({ a: z.object({ b: z.number() }) }), await readJson(c), 'thing')),
  );
  hono.onError(createErrorHandler((fields, message) => logged.push({ fields, message })));
  return { hono, logged };
}

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

describe('createErrorHandler', () => {
  it('answers a ReachError with its status, code, message, data and the caller request id', async () => {
    const { hono, logged } = app();
    const response = await hono.request('/reach', { headers: { 'x-request-id': 'req-1' } });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      code: 'STALE_HEARTBEAT',
      message: 'old seq',
      requestId: 'req-1',
      data: { last_seq: 4 },
    });
    expect(logged).toEqual([]);
  });

  it('turns unknown errors into INTERNAL, logging the cause without sending it', async () => {
    const { hono, logged } = app();
    const response = await hono.request('/unknown');
    expect(response.status).toBe(500);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'requestId']);
    expect(body).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    expect(logged).toHaveLength(1);
    expect(String(logged[0]!.fields.err)).toContain('cannot read x of undefined');
    expect(logged[0]!.fields).toMatchObject({
      code: 'INTERNAL',
      path: '/unknown',
      requestId: body.requestId,
    });
  });

  it('never sends the data of an INTERNAL error', async () => {
    const body = await (await app().hono.request('/internal-data')).json();
    expect(body).not.toHaveProperty('data');
  });

  it('keeps the meaning of hono HTTP errors', async () => {
    const { hono } = app();
    const cases: Array<[number, number, string]> = [
      [413, 413, 'PAYLOAD_TOO_LARGE'],
      [404, 404, 'NOT_FOUND'],
      [401, 401, 'UNAUTHORIZED'],
      [405, 400, 'BAD_REQUEST'],
      [502, 500, 'INTERNAL'],
    ];
    for (const [thrown, status, code] of cases) {
      const response = await hono.request(`/http/${thrown}`);
      expect([thrown, response.status, await codeOf(response)]).toEqual([thrown, status, code]);
    }
  });

  it('maps malformed or empty JSON to INVALID_JSON and schema failures to VALIDATION_FAILED naming the field', async () => {
    const { hono } = app();
    for (const body of ['{"a":', '', '  ']) {
      const bad = await hono.request('/json', { method: 'POST', body });
      expect(bad.status).toBe(400);
      expect(await codeOf(bad)).toBe('INVALID_JSON');
    }
    const wrong = await hono.request('/json', { method: 'POST', body: '{"a":{"b":"x"}}' });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { code: string; message: string; data: { fields: string[] } };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toMatch(/^invalid thing: a\.b: /);
    expect(body.data.fields).toEqual(['a.b']);
    const good = await hono.request('/json', { method: 'POST', body: '{"a":{"b":1}}' });
    expect(await good.json()).toEqual({ a: { b: 1 } });
  });
});

describe('requestIdFrom', () => {
  it('keeps plain tokens and replaces anything else with a fresh id', () => {
    expect(requestIdFrom('abc-1.2:3_x')).toBe('abc-1.2:3_x');
    for (const bad of [undefined, '', 'a b', 'x'.repeat(129), 'new\nline']) {
      const id = requestIdFrom(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
