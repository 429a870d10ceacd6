import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { Zone } from './zone.js';
import { createZoneRoutes } from './zone-routes.js';

describe('createZoneRoutes', () => {
  it('serves the live zone file as text/plain', async () => {
    const source = new FakeInstanceSource();
    const zone = new Zone(source, { zone: 'agents.internal', ttlSeconds: 15 });
    const app = createZoneRoutes(zone);
    const empty = await app.request('/v1/zone');
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await empty.text()).not.toContain('summarizer-a1');
    source.put(makeInstance('summarizer-a1'));
    const full = await app.request('/v1/zone');
    expect(full.headers.get('x-zone-serial')).toBe(String(zone.serial));
    expect(await full.text()).toContain('summarizer-a1.agents.internal.\t15\tIN\tA\t10.0.0.1');
  });
});
