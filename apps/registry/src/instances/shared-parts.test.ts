import { describe, expect, it } from 'vitest';
import { instanceRecord } from '../testing/fixtures.js';
import { SharedParts, sameJson } from './shared-parts.js';

/** A record as the cache gets it from the store: every part a fresh parse. */
const parsed = (id: string, port = 8001) => JSON.parse(JSON.stringify(instanceRecord(id, port)));

describe('SharedParts', () => {
  it('gives the records of one agent version one declaration and one ALPN list, equal to what they had', () => {
    const parts = new SharedParts();
    const a = parsed('a-0001');
    const b = parsed('a-0002', 8002);
    const before = structuredClone(b);
    parts.adopt(a);
    parts.adopt(b);
    expect(b).toEqual(before);
    expect(b.declaration).toBe(a.declaration);
    expect(b.endpoint.alpn).toBe(a.endpoint.alpn);
    expect(b.endpoint).not.toBe(a.endpoint);
  });

  it('keeps a record whose declaration differs under the same version apart', () => {
    const parts = new SharedParts();
    const a = parsed('a-0001');
    const b = parsed('a-0002');
    b.declaration.priority = a.declaration.priority + 1;
    parts.adopt(a);
    parts.adopt(b);
    expect(b.declaration).not.toBe(a.declaration);
    expect(b.declaration.priority).toBe(a.declaration.priority + 1);
  });

  it('lets a version go with its last record: a later record of it shares nothing old', () => {
    const parts = new SharedParts();
    const a = parsed('a-0001');
    const b = parsed('a-0002');
    parts.adopt(a);
    parts.adopt(b);
    parts.release(a);
    const c = parsed('a-0003');
    parts.adopt(c);
    expect(c.declaration).toBe(a.declaration);
    parts.release(b);
    parts.release(c);
    const d = parsed('a-0004');
    parts.adopt(d);
    expect(d.declaration).not.toBe(a.declaration);
  });

  it('shares a declaration alone (a zone entry holds no record), counted with the records of its version', () => {
    const parts = new SharedParts();
    const a = parsed('a-0001');
    parts.adopt(a);
    const copy = parsed('a-0002').declaration;
    expect(parts.adoptDeclaration(copy)).toBe(a.declaration);
    const other = { ...parsed('a-0003').declaration, priority: a.declaration.priority + 1 };
    expect(parts.adoptDeclaration(other)).toBe(other);
    parts.release(a);
    parts.release({ declaration: a.declaration });
    const fresh = parsed('a-0004').declaration;
    expect(parts.adoptDeclaration(fresh)).toBe(fresh);
  });
});

describe('sameJson', () => {
  it('compares JSON values by content, key order aside', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
    expect(sameJson([{}], [{}])).toBe(true);
  });
});
