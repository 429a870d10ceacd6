import { createHash } from 'node:crypto';
import type { Declaration } from '@agent-reach/sdk/protocol';

// Sorted keys, array order kept (tags, examples, serves are ordered lists as declared).
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A declaration version's content: the canonical JSON (keys sorted, defaults applied by the schema) of
 * the parsed declaration without `change_reason`, which explains a version rather than being part of
 * it. Where an instance listens (endpoint, card digest) is not in the declaration, so instances of one
 * version on different hosts share its content.
 */
export function declarationContent(declaration: Declaration): string {
  const { change_reason: _reason, ...content } = declaration;
  return canonical(content);
}

/** sha256 (hex) of `declarationContent`. */
export function contentDigest(declaration: Declaration): string {
  return createHash('sha256').update(declarationContent(declaration)).digest('hex');
}
