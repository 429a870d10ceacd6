// A stand-in for scripts/start.ts: starts `registry` (stops last) and then `agent`, and does nothing
// else, so the test can SIGKILL it (no handler runs) and watch what the children do.
import { fileURLToPath } from 'node:url';
import { Supervisor } from '../../scripts/supervisor.js';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: <dir>');
const child = fileURLToPath(new URL('./supervised-child.fixture.ts', import.meta.url));
const supervisor = new Supervisor([['agent'], ['registry']]);
for (const name of ['registry', 'agent']) supervisor.start({ name, args: [child, dir, name, 'serve'] });
