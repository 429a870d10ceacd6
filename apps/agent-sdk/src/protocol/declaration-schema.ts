import { z } from 'zod';
import { Declaration } from './declaration.js';

/** Where the generated schema is published, relative to the SDK package (`$schema` in a declaration file). */
export const DECLARATION_SCHEMA_FILE = 'declaration.schema.json';

/**
 * The declaration file's JSON Schema (draft 2020-12), generated from the zod schema so editors
 * validate the same rules the runtime does. Rules zod cannot express as JSON Schema (at least one and
 * at most 32 capabilities) are added by hand; `$schema` is allowed so a file can point at this schema.
 */
export function declarationJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Declaration, { io: 'input' }) as {
    properties: Record<string, Record<string, unknown>>;
  } & Record<string, unknown>;
  schema.properties.capabilities = { ...schema.properties.capabilities, minProperties: 1, maxProperties: 32 };
  return {
    $schema: schema.$schema,
    $id: 'https://agent-reach.dev/schemas/declaration.schema.json',
    title: 'Agent Reach capability declaration',
    ...schema,
    properties: {
      $schema: { type: 'string', description: 'The JSON Schema this file follows (ignored by the runtime).' },
      ...schema.properties,
    },
  };
}
