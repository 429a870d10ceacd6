import { createHash } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { queryPacket } from '../../test/dns/dns-client.js';
import { dnsPacket } from '../../test/dns/dns-packet.js';
import { monotonicUs } from './cpuprofile.js';

/** One registration's lag: from its HTTP 201 to the first UDP answer that holds it. */
export interface LagSample {
  /** Milliseconds; negative when the answer was visible before the 201 reached the client. */
  lagMs: number;
  /** Queries sent until the answer appeared. */
  polls: number;
  /** True when no answer held it within 5 s (then `lagMs` is 5000). */
  missed?: boolean;
}

/** A single UDP socket that sends one query at a time and waits for the reply with the same id. */
class UdpPoller {
  private readonly socket: Socket = createSocket('udp4');
  private id = 1;
  private waiting: { id: number; resolve: (reply: Buffer | null) => void } | undefined;

  constructor(private readonly port: number) {
    this.socket.on('message', (reply) => {
      if (this.waiting && reply.length >= 2 && reply.readUInt16BE(0) === this.waiting.id) {
        const { resolve } = this.waiting;
        this.waiting = undefined;
        resolve(reply);
      }
    });
  }

  /** SRV records at `name` (an empty list for NXDOMAIN/NODATA or a lost packet). */
  async srv(name: string): Promise<Array<{ port: number; target: string }>> {
    this.id = (this.id % 65_535) + 1;
    const id = this.id;
    const reply = await new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        resolve(null);
      }, 500);
      this.waiting = {
        id,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      this.socket.send(queryPacket(name, 'SRV', id), this.port, '127.0.0.1');
    });
    if (reply === null) return [];
    return dnsPacket
      .decode(reply)
      .answers.filter((rr) => rr.type === 'SRV')
      .map((rr) => rr.data as { port: number; target: string });
  }

  close(): void {
    this.socket.close();
  }
}

function lagBody(capability: string, port: number): string {
  return JSON.stringify({
    declaration: {
      // One agent per capability: a version's declaration never changes (DECLARATION_VERSION_CHANGED).
      agent_name: `lag-${capability.replaceAll('_', '-')}`,
      domain: 'bench',
      capabilities: { [capability]: { input: ['text'], output: ['text'] } },
      idempotent: true,
      substitutable: true,
    },
    endpoint: { host: '127.0.0.1', port },
    card_sha256: createHash('sha256').update(capability).digest('base64url'),
  });
}

/**
 * Registers `count` instances one after another, each under a capability of its own, while a tight
 * loop asks the responder for `_<capability>._tcp` SRV until the new port shows up.
 */
export async function registrationLags(
  registryUrl: string,
  dnsPort: number,
  count: number,
  zone = 'agents.internal',
): Promise<LagSample[]> {
  const poller = new UdpPoller(dnsPort);
  const samples: LagSample[] = [];
  const run = Date.now().toString(36);
  try {
    for (let i = 0; i < count; i++) {
      const capability = `lag_${run}_${i}`;
      const port = 40_000 + i;
      let answeredAt: number | undefined;
      let polls = 0;
      let registered = false;
      // The poll starts with the request, so an answer visible before the 201 arrives is seen too.
      const polling = (async () => {
        const limit = performance.now() + 5000;
        while (performance.now() < limit) {
          polls++;
          const records = await poller.srv(`_${capability}._tcp.${zone}`);
          if (records.some((r) => r.port === port)) {
            answeredAt = performance.now();
            return;
          }
          // Before the 201, yield a little so the HTTP exchange is not starved of the event loop.
          if (!registered) await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      let res: Response;
      try {
        res = await fetch(`${registryUrl}/v1/agents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: lagBody(capability, port),
        });
      } catch (error) {
        // The poll loop uses the socket: let it end before the socket closes.
        registered = true;
        await polling;
        throw error;
      }
      registered = true;
      const createdAt = performance.now();
      if (res.status !== 201) {
        await polling;
        throw new Error(`register ${capability}: ${res.status} ${await res.text()}`);
      }
      await res.arrayBuffer();
      await polling;
      // Not seen within 5 s: counted as a 5 s lag and named in the figure, not dropped.
      samples.push({
        lagMs: answeredAt === undefined ? 5000 : answeredAt - createdAt,
        polls,
        missed: answeredAt === undefined,
      });
    }
  } finally {
    poller.close();
  }
  return samples;
}

/** Round trips (ms) of `count` SRV queries for a name that does not change: the poll loop's resolution. */
export async function udpRoundTrips(dnsPort: number, name: string, count: number): Promise<number[]> {
  const poller = new UdpPoller(dnsPort);
  const out: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      if ((await poller.srv(name)).length === 0) throw new Error(`no SRV answer for ${name}`);
      out.push(performance.now() - started);
    }
  } finally {
    poller.close();
  }
  return out;
}

/**
 * Milliseconds on a clock every process on this machine reads alike (for a time sent by another):
 * CLOCK_MONOTONIC (`monotonicUs`, the clock `--cpu-prof` stamps its samples with). Until session 19 this was
 * `performance.timeOrigin + performance.now()`, the wall clock at each process's start plus its own
 * monotonic time: a step of the wall clock between two processes' starts (seen on this VM) put them
 * seconds apart, and the churn suite printed a registration → answer p99 of -1,969 ms.
 */
export function machineMs(): number {
  return monotonicUs() / 1000;
}

/** How a probe asks: at most one query in flight, and at most one query per `intervalMs`. */
export interface ProbeOptions {
  /** Least time between two queries of one probe; 0 asks again as soon as an empty reply arrives. @default 1 */
  intervalMs?: number;
  /** Give up after this long. @default 5000 */
  timeoutMs?: number;
}

/** When a probe first saw an answer (`machineMs()`, null if never) and how many queries it sent. */
export interface ProbeResult {
  answeredAt: number | null;
  queries: number;
}

/**
 * Asks `name` A over UDP on its own socket, one query at a time and at most one per `intervalMs`
 * (so many probes at once do not flood the responder), until an answer holds a record. The query is
 * encoded once (each ask writes its ID in) and a reply is read from its header (ID, ANCOUNT), not
 * decoded: the probes share the machine with the server they measure.
 */
export function probeUntilAnswered(
  dnsPort: number,
  name: string,
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const intervalMs = options.intervalMs ?? 1;
  const timeoutMs = options.timeoutMs ?? 5000;
  const socket = createSocket('udp4');
  const query = queryPacket(name, 'A', 0);
  const started = performance.now();
  let lastSent = 0;
  let queries = 0;
  let id = 1;
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (answeredAt: number | null) => {
      clearTimeout(timer);
      socket.close();
      resolve({ answeredAt, queries });
    };
    const ask = () => {
      if (performance.now() - started > timeoutMs) return finish(null);
      id = (id % 65_535) + 1;
      lastSent = performance.now();
      queries++;
      // The previous query is out by now: its reply came, or 200 ms passed.
      query.writeUInt16BE(id, 0);
      socket.send(query, dnsPort, '127.0.0.1');
      // A lost query or reply is asked again.
      timer = setTimeout(ask, 200);
    };
    socket.on('message', (reply) => {
      if (reply.length < 12 || reply.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      // ANCOUNT: the answer section holds a record.
      if (reply.readUInt16BE(6) > 0) return finish(machineMs());
      const wait = lastSent + intervalMs - performance.now();
      if (wait <= 0) ask();
      else timer = setTimeout(ask, wait);
    });
    ask();
  });
}

/** Milliseconds from the call to the first A answer for `name` (null after `timeoutMs`): one round trip when it exists. */
export async function firstAnswerMs(dnsPort: number, name: string, timeoutMs = 5000): Promise<number | null> {
  const from = machineMs();
  const { answeredAt } = await probeUntilAnswered(dnsPort, name, { intervalMs: 0, timeoutMs });
  return answeredAt === null ? null : answeredAt - from;
}
