import { describe, expect, it } from 'vitest';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { testInstance } from '../testing/routing-instances.js';
import { type DeclarationVersions, VersionPreference } from './version-preference.js';

/** Versions '1'..'4' of every agent, verified newest first: '4' is preferred whenever it runs. */
const versions: DeclarationVersions = {
  preferenceOrder: () => ['4', '3', '2', '1'],
  subscribe: () => () => undefined,
  countSuccess: () => undefined,
};

describe('VersionPreference', () => {
  it('follows puts, version moves and removals exactly as one built from scratch would', () => {
    const source = new FakeInstanceSource();
    const preference = new VersionPreference(source, versions, () => undefined);
    const agents = ['alpha', 'beta'];
    const view = (p: VersionPreference) => agents.map((agent) => p.preferredOf(agent));
    let mixed = 0;
    for (let step = 0; step < 300; step += 1) {
      // Two instances per agent over four versions, so the preferred version often leaves.
      const id = `${agents[step % 2]}-${Math.floor(step / 2) % 2}`;
      if (step % 9 === 8) source.remove(id);
      // The same id moves between versions (a re-registration in place).
      else source.put(testInstance(id, { version: String(1 + (((step * 5) % 7) % 4)) }));
      const current = view(preference);
      if (current.some((v) => v !== null)) mixed += 1;
      expect(current).toEqual(view(new VersionPreference(source, versions, () => undefined)));
    }
    // The sequence must reach agents that run several versions (a single version prefers none).
    expect(mixed).toBeGreaterThan(50);
  });
});
