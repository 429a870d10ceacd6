import { startHelloWorld } from './hello.js';

// The node:http hello-world as a process of its own, so its CPU can be read from /proc (spawnReady).
const hello = await startHelloWorld();
process.stdout.write(`${JSON.stringify({ ready: { url: hello.url } })}\n`);
process.once('SIGTERM', () => void hello.close().then(() => process.exit(0)));
