import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelsToWire, nameToWire } from './names.js';

// The plain definitions: split on dots, each label's length then its latin1 octets.
function referenceLabels(name: string): Buffer {
  if (name === '') return Buffer.alloc(0);
  const out = Buffer.alloc(name.length + 1);
  let offset = 0;
  for (const label of name.split('.')) {
    out[offset] = label.length;
    out.write(label, offset + 1, 'latin1');
    offset += label.length + 1;
  }
  return out;
}
const referenceName = (name: string) =>
  Buffer.concat([referenceLabels(name.replace(/\.$/, '')), Buffer.from([0])]);

describe('labelsToWire and nameToWire', () => {
  it.each([
    '',
    '.',
    'a',
    'a.',
    'a..',
    '..',
    'summarizer-v2-3f9c',
    'sum-1.agents.internal',
    'sum-1.agents.internal.',
    '_writing._a2a._agents',
    'é.ü',
    '\u0100x.y',
    `${'a'.repeat(300)}.b`,
  ])('encode %j as split-and-write does', (name) => {
    expect(labelsToWire(name)).toEqual(referenceLabels(name));
    expect(nameToWire(name)).toEqual(referenceName(name));
  });

  it('encode generated names as split-and-write does', () => {
    const name = fc.string({ unit: fc.constantFrom('a', 'z', '0', '-', '_', '.', 'é', '\u0101', '😀') });
    fc.assert(
      fc.property(
        name,
        (n) => labelsToWire(n).equals(referenceLabels(n)) && nameToWire(n).equals(referenceName(n)),
      ),
      { numRuns: 2000 },
    );
  });
});
