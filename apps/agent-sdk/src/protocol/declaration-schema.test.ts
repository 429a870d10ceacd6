import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDeclaration } from '../runtime/declaration-file.js';
import { DECLARATION_SCHEMA_FILE, declarationJsonSchema } from './declaration-schema.js';

const published = fileURLToPath(new URL(`../../${DECLARATION_SCHEMA_FILE}`, import.meta.url));

describe('the declaration JSON Schema', () => {
  it('is the one generated from the zod schema (run `pnpm --filter @agent-reach/sdk schema` after a change)', () => {
    expect(JSON.parse(readFileSync(published, 'utf8'))).toEqual(declarationJsonSchema());
  });

  it('names every declaration field, the skill text included, and the rules zod adds by refinement', () => {
    const schema = declarationJsonSchema() as {
      properties: Record<string, { additionalProperties?: { properties: Record<string, unknown> } }>;
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['$schema', 'agent_name', 'version', 'change_reason', 'domain', 'capabilities']),
    );
    expect(schema.additionalProperties).toBe(false);
    const op = schema.properties.capabilities!.additionalProperties!.properties;
    expect(Object.keys(op)).toEqual(expect.arrayContaining(['description', 'tags', 'examples', 'serves']));
    expect(schema.properties.capabilities).toMatchObject({ minProperties: 1, maxProperties: 32 });
  });

  it('a declaration file may point at it with $schema; the runtime ignores the key', () => {
    const file = fileURLToPath(new URL('../../examples/word-counter/declaration.json', import.meta.url));
    const declaration = loadDeclaration(file);
    expect(declaration.agent_name).toBe('word-counter');
    expect(declaration.capabilities.word_count?.tags).toContain('字数');
    expect('$schema' in declaration).toBe(false);
  });
});
