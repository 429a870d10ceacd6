import { cli } from './cli.js';

// `pnpm reach …`: only wiring; everything testable lives in cli.ts.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `reach traces | head` closes the pipe early; that is not a failure.
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
process.exitCode = await cli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
