import type { Clock } from '@agent-reach/sdk/clock';
import { httpGet } from './http-get.js';

/** A /health answer is a few fields; anything longer is not one. */
const HEALTH_MAX_BYTES = 16_384;

/** What a `/health` probe said: ok, a clear no, or no answer in time (unverified). */
export type Health = 'healthy' | 'unhealthy' | 'unverified';

/** Probes one base URL (`http://host:port`). */
export type HealthCheck = (baseUrl: string) => Promise<Health>;

/** An HTTP `/health` check: `{"status":"ok"}` is healthy, any other answer or a refused connection is not. */
export function httpHealthCheck(timeoutMs = 800): HealthCheck {
  return async (baseUrl) => {
    const res = await httpGet(`${baseUrl}/health`, { timeoutMs, maxBytes: HEALTH_MAX_BYTES });
    // A timeout proves nothing; a refused connection or a garbled answer is a clear no.
    if (!res.ok) return res.failure === 'timeout' ? 'unverified' : 'unhealthy';
    if (res.status < 200 || res.status > 299) return 'unhealthy';
    try {
      const body = JSON.parse(res.body.toString('utf8')) as { status?: unknown } | null;
      return body?.status === 'ok' ? 'healthy' : 'unhealthy';
    } catch {
      return 'unhealthy';
    }
  };
}

/** Health by endpoint with a short reuse window and one probe in flight per endpoint. */
export class HealthProber {
  private readonly recent = new Map<string, { health: Health; until: number }>();
  private readonly inFlight = new Map<string, Promise<Health>>();

  /** @param reuseMs how long one answer serves every capability of the instance. @default 2000 */
  constructor(
    private readonly check: HealthCheck,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly reuseMs = 2000,
  ) {}

  /** The health of the agent at `baseUrl`. */
  async health(baseUrl: string, tally: { health_probes: number }): Promise<Health> {
    const hit = this.recent.get(baseUrl);
    if (hit !== undefined && hit.until > this.clock.now()) return hit.health;
    const running = this.inFlight.get(baseUrl);
    if (running !== undefined) return running;
    tally.health_probes++;
    const probe = this.check(baseUrl).then((health) => {
      this.recent.set(baseUrl, { health, until: this.clock.now() + this.reuseMs });
      this.inFlight.delete(baseUrl);
      return health;
    });
    this.inFlight.set(baseUrl, probe);
    return probe;
  }
}
