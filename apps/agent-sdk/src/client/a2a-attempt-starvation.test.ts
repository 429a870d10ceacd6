import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import { startTestAgent, type TestAgent } from '../testing/test-agents.js';
import { type AttemptOutcome, a2aAttempt } from './a2a-attempt.js';

// These tests starve the loop on purpose (a synchronous busy wait) and fire the attempt's timers by
// hand where a starved loop would: in the timers phase, before the poll that reads the finished I/O.

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

const request = { request_id: 'req-1', input: { text: 'hi' } };
const timeouts = { connectMs: 300, ackMs: 400, executionMs: 400 };
const at = (port: number) => ({ url: `http://127.0.0.1:${port}/a2a/jsonrpc`, binding: 'JSONRPC' as const });

function starve(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin: the kernel keeps moving bytes while the event loop stands still
  }
}

describe('a2aAttempt under CPU starvation', () => {
  it('does not call a connect that completed while the loop was starved a connect failure', async () => {
    const agent = await startTestAgent((x) => {
      x.ack();
      x.result('ok');
    });
    agents.push(agent);
    const clock = new ManualClock();
    const outcome = await new Promise<AttemptOutcome>((resolve) => {
      // Started in the check phase, the next phases are timers and then poll, as after a starved turn.
      setImmediate(() => {
        void a2aAttempt(at(agent.port), { request, clock, ...timeouts }).then(resolve);
        // Node issues connect() on a nextTick; after it, the loopback handshake finishes in the kernel
        // while the loop spins, and the connect timer fires before the poll that would report it.
        process.nextTick(() => {
          starve(30);
          clock.advance(timeouts.connectMs);
        });
      });
    });
    expect(outcome).toMatchObject({ ok: true, output: 'ok', acked: true });
  });

  it('does not call an ack that arrived while the loop was starved an ack timeout', async () => {
    const clock = new ManualClock();
    const agent = await startTestAgent(async (x) => {
      x.ack();
      // Due in the next timers phase, which comes before the poll that would read the ack.
      setTimeout(() => {
        starve(30);
        clock.advance(timeouts.ackMs);
      }, 0);
      starve(5);
      await new Promise((resolve) => setTimeout(resolve, 50));
      x.result('ok');
    });
    agents.push(agent);
    const outcome = await a2aAttempt(at(agent.port), { request, clock, ...timeouts });
    expect(outcome).toMatchObject({ ok: true, output: 'ok', acked: true });
  });

  it('still times out an ack that never comes, one turn after the timer', async () => {
    const clock = new ManualClock();
    let seen!: () => void;
    const requested = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const agent = await startTestAgent(() => seen());
    agents.push(agent);
    const pending = a2aAttempt(at(agent.port), { request, clock, ...timeouts });
    await requested;
    clock.advance(timeouts.ackMs);
    expect(await pending).toMatchObject({ ok: false, failure: 'ack_timeout', acked: false });
  });
});
