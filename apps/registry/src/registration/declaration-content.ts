import { hash } from 'node:crypto';
import type { Declaration } from '@agent-reach/sdk/protocol';

// Sorted keys, array order kept (tags, examples, serves are ordered lists as declared); undefined
// values are left out of objects. Written with plain loops and string appends: it runs on every
// registration, and the entries/filter/sort/map version cost ~25 µs of a ~30 µs digest.
function canonical(value: unknown, skip?: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? '';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonical(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, as `<` on strings does.
  const keys = Object.keys(object).sort();
  let out = '{';
  for (const key of keys) {
    const v = object[key];
    if (v === undefined || key === skip) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonical(v)}`;
  }
  return `${out}}`;
}

/**
 * A declaration version's content: the canonical JSON (keys sorted, defaults applied by the schema) of
 * the parsed declaration without `change_reason`, which explains a version rather than being part of
 * it. Where an instance listens (endpoint, card digest) is not in the declaration, so instances of one
 * version on different hosts share its content.
 */
export function declarationContent(declaration: Declaration): string {
  return canonical(declaration, 'change_reason');
}

// Declarations are never changed after parsing and one object serves many registrations (the
// register route reuses the parse of a declaration text it has seen), so each is digested once.
const digests = new WeakMap<Declaration, string>();

/** sha256 (hex) of `declarationContent`. */
export function contentDigest(declaration: Declaration): string {
  let digest = digests.get(declaration);
  if (digest === undefined) {
    digest = hash('sha256', declarationContent(declaration), 'hex');
    digests.set(declaration, digest);
  }
  return digest;
}
