import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../test/harness/ports.js';

/**
 * A Node process that answers every UDP datagram with a copy of it flagged as a response (QR set, no
 * records): what one Node thread's dgram socket costs per query with no DNS work, a floor for the
 * responder's CPU per query and a ceiling for its queries/s. Its socket skips dgram's `dns.lookup` of
 * each reply's (literal) address, as the responder's does.
 */
const ECHO = `
const socket = require('node:dgram').createSocket({
  type: 'udp4',
  lookup: (address, options, callback) => callback(null, address, 4),
});
const sent = (error) => { if (error) process.stderr.write(String(error) + '\\n'); };
socket.on('message', (msg, rinfo) => {
  if (msg.length < 12) return;
  const reply = Buffer.allocUnsafe(msg.length);
  msg.copy(reply);
  reply[2] |= 0x80;
  socket.send(reply, rinfo.port, rinfo.address, sent);
});
socket.bind(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

/** Starts the echo process; `launcher` runs node under another command (e.g. valgrind and its flags). */
export async function startUdpEcho(
  launcher: string[] = [],
): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const [command, ...args] = [...launcher, process.execPath];
  const child: ChildProcess = spawn(command!, [...args, '-e', ECHO, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`udp echo exited (${code})`)));
  });
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
