import { ReachError } from '../protocol/index.js';

/** Where spans go, from the standard `OTEL_*` variables; `tracesUrl` null means spans are not exported. */
export interface TelemetryOptions {
  serviceName: string;
  tracesUrl: string | null;
  headers: Record<string, string>;
  /** `OTEL_SDK_DISABLED=true` turns the SDK off entirely. */
  disabled: boolean;
}

function parseHeaders(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

function checkUrl(url: string, key: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return url;
  } catch {}
  throw new ReachError('INVALID_CONFIG', `${key} is not an http(s) URL: ${url}`, { data: { key } });
}

/**
 * Reads the OTLP/HTTP settings from an env record (spec: the signal-specific endpoint is used as is,
 * the generic one gets `/v1/traces` appended); `defaultServiceName` unless `OTEL_SERVICE_NAME` says otherwise.
 */
export function compileTelemetryOptions(
  env: Record<string, string | undefined>,
  defaultServiceName: string,
): TelemetryOptions {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const generic = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const tracesUrl = specific
    ? checkUrl(specific, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : generic
      ? `${checkUrl(generic, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/$/, '')}/v1/traces`
      : null;
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  return {
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName,
    tracesUrl: disabled || env.OTEL_TRACES_EXPORTER?.trim() === 'none' ? null : tracesUrl,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    disabled,
  };
}
