import http from 'node:http';
import https from 'node:https';

/** A GET's answer, or why there is none. */
export type GetResult =
  | { ok: true; status: number; body: Buffer }
  | { ok: false; failure: 'timeout' | 'too_large' | 'unreachable'; cause?: Error };

/** Limits for one GET. */
export interface GetOptions {
  timeoutMs: number;
  /** Largest body read; a longer one is cut off as `too_large`. */
  maxBytes: number;
}

// Discovery's card fetches and /health probes share kept-alive connections per agent: node:http costs a
// fraction of fetch() per request, and the probe right after a card reuses the card's connection.
// Idle sockets close after 4 s, before the agents' own 5 s keep-alive timeout would close them.
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4000 }),
};

function getOnce(url: URL, options: GetOptions): Promise<GetResult & { reused: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    let reused = false;
    const finish = (result: GetResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, reused });
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(url, { agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
      const declared = Number(res.headers['content-length'] ?? 0);
      if (declared > options.maxBytes) {
        finish({ ok: false, failure: 'too_large' });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          finish({ ok: false, failure: 'too_large' });
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => finish({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', (cause) => finish({ ok: false, failure: 'unreachable', cause }));
    });
    req.on('socket', () => {
      reused = req.reusedSocket;
    });
    req.on('error', (cause) => finish({ ok: false, failure: 'unreachable', cause }));
    const timer = setTimeout(() => {
      finish({ ok: false, failure: 'timeout' });
      req.destroy();
    }, options.timeoutMs);
  });
}

/**
 * GETs `url` over a kept-alive connection with a deadline and a body limit; redirects are not followed.
 * A kept connection the agent had just closed is retried once on a new one (Node's advice for keep-alive).
 */
export async function httpGet(url: string, options: GetOptions): Promise<GetResult> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    return { ok: false, failure: 'unreachable', cause: cause as Error };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { ok: false, failure: 'unreachable', cause: new Error(`${parsed.protocol} is not HTTP`) };
  const started = performance.now();
  const first = await getOnce(parsed, options);
  if (first.ok || first.failure !== 'unreachable' || !first.reused) return strip(first);
  const left = options.timeoutMs - (performance.now() - started);
  if (left <= 0) return { ok: false, failure: 'timeout' };
  return strip(await getOnce(parsed, { ...options, timeoutMs: left }));
}

function strip(result: GetResult & { reused: boolean }): GetResult {
  const { reused: _reused, ...rest } = result;
  return rest;
}
