// A child for the supervisor tests, args `<dir> <name> serve|finish`. `serve` listens until SIGTERM,
// then logs (into a pipe nobody may read any more), takes 300 ms to close, and writes <dir>/<name>.stopped
// recording which children had stopped when its SIGTERM came. `finish` prints and ends.
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [dir, name, mode] = process.argv.slice(2);
if (!dir || !name || (mode !== 'serve' && mode !== 'finish'))
  throw new Error('usage: <dir> <name> serve|finish');

if (mode === 'finish') {
  process.stdout.write('done\n');
} else {
  const server = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1', () => {
    process.stdout.write(`ready ${process.pid}\n`);
  });
  process.once('SIGTERM', () => {
    const stoppedBefore = readdirSync(dir).filter((file) => file.endsWith('.stopped'));
    // Several writes, as an app's shutdown logging does: each one fails with EPIPE once the parent is dead.
    for (let i = 0; i < 3; i++) process.stdout.write(`stopping ${i}\n`);
    console.error('stopping (stderr)');
    setTimeout(() => {
      server.close(() => {
        const record = { pid: process.pid, signal: 'SIGTERM', stoppedBefore };
        writeFileSync(join(dir, `${name}.stopped`), JSON.stringify(record));
      });
    }, 300);
  });
}
