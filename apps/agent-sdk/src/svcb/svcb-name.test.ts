import { describe, expect, it } from 'vitest';
import { nameFromWire, nameToWire } from './svcb-name.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('domain names', () => {
  it('encodes labels, keeps case and reads escapes', () => {
    expect(hex(nameToWire('Foo.Example.'))).toBe('03466f6f074578616d706c6500');
    expect(hex(nameToWire('a\\.b.c'))).toBe('03612e620163' + '00');
    expect(hex(nameToWire('\\097\\032b.'))).toBe('0361206200');
    expect(hex(nameToWire('.'))).toBe('00');
  });

  it('prints escapes that read back to the same octets', () => {
    const wire = Uint8Array.of(5, 0x2e, 0x5c, 0x22, 0x00, 0x7f, 3, 0x40, 0x24, 0x3b, 0);
    const { name, next } = nameFromWire(wire, 0);
    expect(name).toBe('\\.\\\\\\"\\000\\127.\\@\\$\\;.');
    expect(next).toBe(wire.length);
    expect(nameToWire(name)).toEqual(wire);
  });

  it('allows exactly 255 octets on the wire', () => {
    const max = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');
    expect(nameToWire(max)).toHaveLength(255);
    expect(() => nameToWire(`${max}d`)).toThrow(/over 255 octets/);
  });

  it.each([
    ['a bad decimal escape', 'a\\25.', /bad decimal escape/],
    ['an escape past 255', 'a\\300.', /bad decimal escape/],
    ['a blank', 'a b.', /must be escaped/],
    ['a leading dot', '.a.', /empty label/],
  ])('refuses %s', (_, name, message) => {
    expect(() => nameToWire(name)).toThrow(message);
  });
});
