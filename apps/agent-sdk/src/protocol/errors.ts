/** The closed set of error codes used across Agent Reach; tell errors apart by `code`. */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NAME_OWNED',
  'NOT_FOUND',
  'UNKNOWN_CAPABILITY',
  'UNKNOWN_INSTANCE',
  'STALE_HEARTBEAT',
  'LEASE_TOKEN_INVALID',
  'CONFLICT',
  'NO_CANDIDATES',
  'OVERLOADED',
  'UNAVAILABLE',
  'TIMEOUT',
  'CANCELLED',
  'INVALID_SVCB',
  'CARD_UNREACHABLE',
  'CARD_INVALID',
  'CARD_TOO_LARGE',
  'NO_USABLE_SKILL',
  'INVALID_CONFIG',
  'INVALID_DECLARATION',
  'DECLARATION_VERSION_CHANGED',
  'CHANGE_REASON_REQUIRED',
  'STORE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status for each error code; domain code never picks statuses itself. */
export const ERROR_HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NAME_OWNED: 403,
  NOT_FOUND: 404,
  UNKNOWN_CAPABILITY: 422,
  UNKNOWN_INSTANCE: 410,
  STALE_HEARTBEAT: 409,
  LEASE_TOKEN_INVALID: 401,
  CONFLICT: 409,
  NO_CANDIDATES: 404,
  OVERLOADED: 429,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
  CANCELLED: 499,
  INVALID_SVCB: 400,
  CARD_UNREACHABLE: 422,
  CARD_INVALID: 422,
  CARD_TOO_LARGE: 422,
  NO_USABLE_SKILL: 422,
  INVALID_CONFIG: 400,
  INVALID_DECLARATION: 422,
  /** A declaration version is immutable: its content differs from the recorded one. */
  DECLARATION_VERSION_CHANGED: 409,
  /** A second or later version of an agent name came without `change_reason`. */
  CHANGE_REASON_REQUIRED: 422,
  STORE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** One error type for the whole system: a closed `code`, a message, optional data and cause. */
export class ReachError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReachError';
    this.code = code;
    this.data = options.data;
  }
}

/** True when `value` carries a ReachError code (works across realms and copies of the class). */
export function isReachError(value: unknown): value is ReachError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'ReachError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** An expected outcome: a value or an error, never a throw. */
export type Result<T, E = ReachError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });

/** Longest piece of client input (an id, a path) quoted in an error message. */
export const MAX_QUOTED_INPUT = 80;

/** Client input as quoted in an error message: cut to `MAX_QUOTED_INPUT` characters, marked when cut. */
export function quoteInput(value: string): string {
  return value.length > MAX_QUOTED_INPUT
    ? `${value.slice(0, MAX_QUOTED_INPUT)}…(${value.length} chars)`
    : value;
}
