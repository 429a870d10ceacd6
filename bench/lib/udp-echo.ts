import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../test/harness/ports.js';

/**
 * A Node process that answers every UDP datagram with a copy of it flagged as a response (QR set, no
 * records): what one Node thread's dgram socket costs per query with no DNS work, a floor for the
 * responder's CPU per query and a ceiling for its queries/s. Its socket skips dgram's `dns.lookup` of
 * each reply's (literal) address, and sends without a callback, as the responder's does.
 */
const ECHO = `
const withCallback = process.argv[2] === 'callback';
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
  if (withCallback) socket.send(reply, rinfo.port, rinfo.address, sent);
  else socket.send(reply, rinfo.port, rinfo.address);
});
socket.bind(Number(process.argv[1]), '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

/**
 * Starts the echo process; `launcher` runs node under another command (e.g. valgrind and its flags).
 * With `sendCallback` each send passes a callback, as the responder's did until session 14 (dgram then
 * calls it on a \`process.nextTick\`, even after a synchronous send).
 */
export async function startUdpEcho(
  launcher: string[] = [],
  sendCallback = false,
): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const [command, ...args] = [...launcher, process.execPath];
  const child: ChildProcess = spawn(
    command!,
    [...args, '-e', ECHO, String(port), sendCallback ? 'callback' : 'no-callback'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
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
