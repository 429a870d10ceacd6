import { describe, expect, it } from 'vitest';
import { externalRegistration } from './external-card.js';

const base = 'http://127.0.0.1:9000';
const card = (over: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      name: 'Upper Echo',
      description: 'echoes in upper case',
      supportedInterfaces: [
        { url: `${base}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      version: '2',
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        { id: 'Upper-Echo', name: 'Upper echo', description: 'repeats', tags: [], examples: ['hi'] },
        { id: '???', name: 'odd', description: 'no capability id', tags: [] },
      ],
      ...over,
    }),
  );
const sha = 'A'.repeat(43);
const request = { card_url: `${base}/.well-known/agent-card.json` };

describe('externalRegistration', () => {
  it('maps skills whose ids normalise to capability ids, prefers JSON-RPC, and takes the endpoint from the interface', async () => {
    const r = await externalRegistration(request, card(), sha);
    if (!r.ok) throw r.error;
    expect(r.value.mapping).toEqual({ 'Upper-Echo': 'upper_echo' });
    expect(r.value.a2a).toEqual({ url: `${base}/rpc`, binding: 'JSONRPC' });
    expect(r.value.endpoint).toMatchObject({ host: '127.0.0.1', port: 9000, scheme: 'http' });
    expect(r.value.declaration).toMatchObject({
      agent_name: 'upper-echo',
      domain: 'external',
      idempotent: false,
      capabilities: { upper_echo: { description: 'repeats', examples: ['hi'] } },
    });
    const again = await externalRegistration(request, card(), sha);
    expect(again.ok && again.value.declaration.version).toBe(r.value.declaration.version);
    const other = await externalRegistration({ ...request, idempotent: true }, card(), sha);
    expect(other.ok && other.value.declaration.version).not.toBe(r.value.declaration.version);
  });

  it('publishes only mapped skills under the given capabilities', async () => {
    const r = await externalRegistration(
      { ...request, capabilities: { 'Upper-Echo': 'writing' }, agent_name: 'echo-1' },
      card(),
      sha,
    );
    if (!r.ok) throw r.error;
    expect(Object.keys(r.value.declaration.capabilities)).toEqual(['writing']);
    expect(r.value.declaration.agent_name).toBe('echo-1');
  });

  it('refuses what cannot be published, with a code', async () => {
    const code = async (bytes: Buffer, req: Parameters<typeof externalRegistration>[0] = request) => {
      const r = await externalRegistration(req, bytes, sha);
      return r.ok ? 'ok' : r.error.code;
    };
    expect(await code(Buffer.from('not json'))).toBe('CARD_INVALID');
    expect(await code(Buffer.from('{"name":"old","url":"http://x","protocolVersion":"0.3.0"}'))).toBe(
      'CARD_INVALID',
    );
    expect(await code(card({ supportedInterfaces: [{ url: `${base}/g`, protocolBinding: 'GRPC' }] }))).toBe(
      'CARD_INVALID',
    );
    expect(
      await code(
        card({ supportedInterfaces: [{ url: 'http://10.9.9.9:80/rpc', protocolBinding: 'JSONRPC' }] }),
      ),
    ).toBe('CARD_INVALID');
    expect(
      await code(
        card({
          supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
        }),
      ),
    ).toBe('CARD_INVALID');
    expect(await code(card({ skills: [{ id: '???', name: 'x', description: 'x', tags: [] }] }))).toBe(
      'NO_USABLE_SKILL',
    );
    expect(await code(card(), { ...request, capabilities: { missing: 'writing' } })).toBe('NO_USABLE_SKILL');
    // A card with no skills at all says nothing it does (issue 14's bad input).
    expect(await code(card({ skills: [] }))).toBe('NO_USABLE_SKILL');
    expect(await code(card({ name: '!!!' }))).toBe('VALIDATION_FAILED');
  });
});
