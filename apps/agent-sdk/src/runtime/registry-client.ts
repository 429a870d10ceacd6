import {
  ERROR_CODES,
  ErrorBody,
  type ErrorCode,
  err,
  ok,
  ReachError,
  type RegisterRequest,
  RegisterResponse,
  type Result,
} from '../protocol/index.js';

/** A registry call that failed; `retryable` says whether waiting and trying again may help. */
export interface RegistryFailure {
  error: ReachError;
  retryable: boolean;
}

/** How long one registry call may take before it counts as "registry unreachable". */
const CALL_TIMEOUT_MS = 5000;

const isErrorCode = (code: string): code is ErrorCode => (ERROR_CODES as readonly string[]).includes(code);

/** Statuses that mean "the registry is not able right now", as opposed to "the registry says no". */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

async function failureFrom(response: Response): Promise<RegistryFailure> {
  const text = await response.text().catch(() => '');
  let body: ErrorBody | null = null;
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    body = parsed.success ? parsed.data : null;
  } catch {}
  const code: ErrorCode =
    body && isErrorCode(body.code) ? body.code : response.status >= 500 ? 'UNAVAILABLE' : 'BAD_REQUEST';
  const message = `registry answered ${response.status}: ${body?.message ?? (text.slice(0, 200) || response.statusText)}`;
  return {
    error: new ReachError(code, message, { data: { status: response.status } }),
    retryable: retryableStatus(response.status),
  };
}

function unreachable(url: string, cause: unknown): RegistryFailure {
  const error = cause as (Error & { cause?: { code?: string } }) | undefined;
  // fetch hides the socket error (ECONNREFUSED, ENOTFOUND) in `cause`.
  const reason =
    error?.name === 'TimeoutError' ? 'timed out' : (error?.cause?.code ?? error?.message ?? String(cause));
  return {
    error: new ReachError('UNAVAILABLE', `registry at ${url} unreachable: ${reason}`, { cause }),
    retryable: true,
  };
}

/** Talks to the registry's agent API: register and deregister (heartbeats go from the worker). */
export class RegistryClient {
  private readonly base: string;

  constructor(
    controlPlaneUrl: string,
    private readonly registryToken: string | undefined,
  ) {
    this.base = controlPlaneUrl.replace(/\/+$/, '');
  }

  /** `POST /v1/agents`; resolves with the registry's confirmation or why it failed. */
  async register(
    request: RegisterRequest,
    signal?: AbortSignal,
  ): Promise<Result<RegisterResponse, RegistryFailure>> {
    const url = `${this.base}/v1/agents`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.registryToken) headers.authorization = `Bearer ${this.registryToken}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal: callSignal(signal),
      });
    } catch (cause) {
      return err(unreachable(url, cause));
    }
    if (!response.ok) return err(await failureFrom(response));
    const parsed = RegisterResponse.safeParse(await response.json().catch(() => null));
    if (!parsed.success) {
      const error = new ReachError(
        'UNAVAILABLE',
        `registry answered ${response.status} with a body that is not a RegisterResponse`,
      );
      return err({ error, retryable: true });
    }
    return ok(parsed.data);
  }

  /** `DELETE /v1/agents/{id}`; an instance the registry no longer knows counts as deregistered. */
  async deregister(
    instanceId: string,
    leaseToken: string,
    signal?: AbortSignal,
  ): Promise<Result<void, RegistryFailure>> {
    const url = `${this.base}/v1/agents/${encodeURIComponent(instanceId)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${leaseToken}` },
        signal: callSignal(signal),
      });
    } catch (cause) {
      return err(unreachable(url, cause));
    }
    if (response.ok || response.status === 404 || response.status === 410) {
      await response.body?.cancel();
      return ok(undefined);
    }
    return err(await failureFrom(response));
  }
}

function callSignal(signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}
