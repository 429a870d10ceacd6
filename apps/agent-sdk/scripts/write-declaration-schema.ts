// Writes declaration.schema.json from the zod schema: pnpm --filter @agent-reach/sdk schema
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DECLARATION_SCHEMA_FILE, declarationJsonSchema } from '../src/protocol/index.js';

const target = fileURLToPath(new URL(`../${DECLARATION_SCHEMA_FILE}`, import.meta.url));
writeFileSync(target, `${JSON.stringify(declarationJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
