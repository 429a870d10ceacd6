import { ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { captureLogger } from '../testing/test-registry.js';
import { createErrorHandler } from './error-handler.js';
import { readJson } from './read-json.js';
import { parseOrThrow } from './validation.js';

function app() {
  const { logger, lines } = captureLogger();
  const hono = new Hono();
  hono.get('/reach', () => {
    throw new ReachError('STALE_HEARTBEAT', 'old seq', { data: { last_seq: 4 } });
  });
  hono.get('/unknown', () => {
    throw new TypeError('cannot read x of undefined');
  });
  hono.get('/http', () => {
    throw new HTTPException(413);
  });
  hono.post('/json', async (c) =>
    c.json(parseOrThrow(z.object({ a: z.object({ b: z.number() }) }), await readJson(c))),
  );
  hono.onError(createErrorHandler(logger));
  return { hono, lines };
}

describe('createErrorHandler', () => {
  it('answers a ReachError with its status, code, message, data and a request id', async () => {
    const { hono } = app();
    const response = await hono.request('/reach', { headers: { 'x-request-id': 'req-1' } });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      code: 'STALE_HEARTBEAT',
      message: 'old seq',
      requestId: 'req-1',
      data: { last_seq: 4 },
    });
  });

  it('turns unknown errors into INTERNAL, logging the cause without sending it', async () => {
    const { hono, lines } = app();
    const response = await hono.request('/unknown');
    expect(response.status).toBe(500);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    expect(JSON.stringify(body)).not.toContain('undefined');
    expect(lines.some((line) => JSON.stringify(line.err).includes('cannot read x of undefined'))).toBe(true);
  });

  it('keeps the meaning of hono HTTP errors', async () => {
    const response = await app().hono.request('/http');
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('maps malformed JSON and schema failures to 400 with the field path', async () => {
    const { hono } = app();
    const bad = await hono.request('/json', { method: 'POST', body: '{"a":' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('INVALID_JSON');
    const wrong = await hono.request('/json', { method: 'POST', body: '{"a":{"b":"x"}}' });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { code: string; message: string };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('a.b');
  });
});
