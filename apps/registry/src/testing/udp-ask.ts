import { createSocket } from 'node:dgram';

/** The raw reply to `msg` sent over UDP to 127.0.0.1:`port`; rejects when none comes within 2 s. */
export function udpAsk(port: number, msg: Buffer): Promise<Buffer> {
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no UDP answer'));
    }, 2000);
    socket.once('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(msg, port, '127.0.0.1');
  });
}
