import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { InstanceRecord } from '../store/records.js';

/**
 * What a probe of a silent instance's endpoint proved: `dead` (the connection was refused, or another
 * instance answers there), `alive` (it answers as itself) or `unknown` (no answer in time, or one that
 * says nothing about who answered).
 */
export type ProbeVerdict = 'dead' | 'alive' | 'unknown';

/** Checks whether a silent instance is still there; storm protection holds only what it cannot prove dead. */
export interface InstanceProber {
  probe(record: InstanceRecord): Promise<ProbeVerdict>;
}

/** Largest `/health` body read; an SDK agent's is a few hundred bytes. */
const MAX_BODY_BYTES = 16_384;

/**
 * Probes `GET /health` at the registered endpoint (the SDK serves it with the instance id) over a
 * fresh connection: a refused connection or another instance id is proof of death; a timeout, a reset
 * or an answer without an id is unknown.
 */
export function httpInstanceProber(options: { timeoutMs: number }): InstanceProber {
  return {
    probe(record) {
      const { endpoint } = record;
      const request = endpoint.scheme === 'https' ? httpsRequest : httpRequest;
      return new Promise<ProbeVerdict>((resolve) => {
        let settled = false;
        const settle = (verdict: ProbeVerdict) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          resolve(verdict);
        };
        const req = request({
          host: endpoint.host,
          port: endpoint.port,
          path: '/health',
          method: 'GET',
          agent: false,
          headers: { accept: 'application/json', connection: 'close' },
          // The probe asks who is there, not whether the certificate is good (a wrong one is still someone).
          rejectUnauthorized: false,
        });
        const timer = setTimeout(() => settle('unknown'), options.timeoutMs);
        req.on('error', (error: NodeJS.ErrnoException) =>
          settle(error.code === 'ECONNREFUSED' ? 'dead' : 'unknown'),
        );
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) settle('unknown');
            else chunks.push(chunk);
          });
          res.on('error', () => settle('unknown'));
          res.on('end', () => settle(verdictOf(Buffer.concat(chunks).toString('utf8'), record.instance_id)));
        });
        req.end();
      });
    },
  };
}

/** Who a `/health` body says answered: this instance, another one, or nobody we can tell. */
function verdictOf(text: string, instanceId: string): ProbeVerdict {
  let answered: unknown;
  try {
    answered = (JSON.parse(text) as { instance_id?: unknown }).instance_id;
  } catch {
    return 'unknown';
  }
  if (typeof answered !== 'string') return 'unknown';
  return answered === instanceId ? 'alive' : 'dead';
}
