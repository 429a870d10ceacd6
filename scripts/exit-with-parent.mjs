// Preload (`node --import <this> …`) for the processes scripts/supervisor.ts starts: when the
// supervisor is gone — however it died, SIGKILL included — the child stops itself with its own
// SIGTERM, so the app's graceful shutdown runs (deregister, close stores, release locks) instead of
// the child living on as an orphan holding ports and data directories. The supervisor's stop order
// still holds: it sends each child `{exitAfter: pid}` for the processes that must stop before it.
// Plain JavaScript so it loads before tsx; it does nothing in a process started without an IPC channel.
import { readFileSync } from 'node:fs';

/** How long a child waits for the processes it must outlive (the supervisor allows 5 s per phase). */
const OUTLIVE_AT_MOST_MS = 10_000;

if (process.channel) {
  const outlive = new Set();
  // The channel exists only to notice the parent's end; it must never keep the child alive.
  process.channel.unref();
  process.on('message', (message) => {
    if (Number.isInteger(message?.exitAfter)) outlive.add(message.exitAfter);
  });
  process.once('disconnect', () => {
    // Our stdout/stderr are pipes the dead parent read: a shutdown log line would fail with EPIPE,
    // and an unhandled stream error would end the process before its shutdown finished.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
    const deadline = performance.now() + OUTLIVE_AT_MOST_MS;
    const stopWhenAlone = () => {
      if ([...outlive].some(running) && performance.now() < deadline) setTimeout(stopWhenAlone, 100);
      else process.kill(process.pid, 'SIGTERM');
    };
    stopWhenAlone();
  });
}

/** True while `pid` runs; a dead orphan nobody has reaped yet (Linux state Z) has stopped. */
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === 'EPERM';
  }
  try {
    // The state follows the parenthesised command name, which may itself hold spaces or ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true;
  }
}
