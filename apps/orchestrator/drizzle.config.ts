import { defineConfig } from 'drizzle-kit';

// Generate with `pnpm --filter @agent-reach/orchestrator exec drizzle-kit generate`; migrations live at the top level.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/traces/schema.ts',
  out: '../../migrations',
});
