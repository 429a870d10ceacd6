// A stand-in for scripts/start.ts: starts `registry` (stops last) and then `agent`; on SIGINT it stops
// them in order, as start.ts does. The tests SIGKILL it (no handler runs) or SIGINT its whole process
// group (a terminal's Ctrl-C) and watch what the children do.
import { fileURLToPath } from 'node:url';
import { Supervisor } from '../../scripts/supervisor.js';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: <dir>');
const child = fileURLToPath(new URL('./supervised-child.fixture.ts', import.meta.url));
const supervisor = new Supervisor([['agent'], ['registry']]);
for (const name of ['registry', 'agent']) supervisor.start({ name, args: [child, dir, name, 'serve'] });
process.once('SIGINT', () => {
  void supervisor.stopAll().then(() => process.exit(0));
});
