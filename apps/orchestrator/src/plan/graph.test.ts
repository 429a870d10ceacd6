import { describe, expect, it } from 'vitest';
import { breakCycles, isValidDag, LEVELS_GUARD, levels } from './graph.js';

const n = (id: string, depends_on: string[] = []) => ({ id, depends_on });

describe('levels', () => {
  it('layers independent nodes together and dependants after them', () => {
    const plan = {
      nodes: [n('n1'), n('n2'), n('n3', ['n1']), n('n4', ['n2']), n('n5', ['n3', 'n4']), n('n6', ['n5'])],
    };
    expect(levels(plan)).toEqual([['n1', 'n2'], ['n3', 'n4'], ['n5'], ['n6']]);
  });

  it('puts a stuck remainder into one last layer instead of looping', () => {
    const plan = { nodes: [n('a'), n('b', ['c']), n('c', ['b'])] };
    expect(levels(plan)).toEqual([['a'], ['b', 'c']]);
  });

  it(`stops after ${LEVELS_GUARD} rounds`, () => {
    const chain = Array.from({ length: 30 }, (_, i) => n(`n${i}`, i === 0 ? [] : [`n${i - 1}`]));
    const out = levels({ nodes: chain });
    expect(out).toHaveLength(LEVELS_GUARD);
    expect(out.at(-1)).toHaveLength(30 - (LEVELS_GUARD - 1));
  });

  it('ignores dependencies on unknown nodes', () => {
    expect(levels({ nodes: [n('a', ['ghost'])] })).toEqual([['a']]);
  });
});

describe('breakCycles', () => {
  it('cuts only forward edges inside cycles', () => {
    const out = breakCycles([n('a', ['b', 'd']), n('b', ['a']), n('c'), n('d', ['c'])]);
    expect(out.nodes.map((x) => x.depends_on)).toEqual([['d'], ['a'], [], ['c']]);
    expect(out.cut).toEqual([{ from: 'a', to: 'b' }]);
    expect(isValidDag(out.nodes)).toBe(true);
  });

  it('cuts a self edge', () => {
    expect(breakCycles([n('a', ['a'])]).cut).toEqual([{ from: 'a', to: 'a' }]);
  });
});

describe('isValidDag', () => {
  it('rejects cycles, missing and repeated ids', () => {
    expect(isValidDag([n('a', ['b']), n('b', ['a'])])).toBe(false);
    expect(isValidDag([n('a', ['x'])])).toBe(false);
    expect(isValidDag([n('a'), n('a')])).toBe(false);
    expect(isValidDag([n('a'), n('b', ['a'])])).toBe(true);
  });
});
