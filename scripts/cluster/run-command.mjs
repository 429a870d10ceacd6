// Runs a program that is not node (etcd) as a child the supervisor can manage like its node children:
// signals are passed on, and the program's exit is this process's exit. Plain JavaScript (no tsx needed).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: 'inherit' });
// The supervisor SIGKILLs a child after 5 s, which would orphan the program: kill it hard before that
// (etcd members stopped together can wait on each other for a leader transfer that never comes).
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => {
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
child.on('exit', (code, signal) => {
  process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
