import {
  type Attributes,
  type Context,
  context as contextApi,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** Where a span hangs and what it carries. */
export interface SpanOptions {
  /** The parent; spans are parented explicitly so no context manager is needed. */
  parent?: Context;
  attributes?: Attributes;
  kind?: SpanKind;
}

/** `withSpan` held to an app's closed set of span names (each app exports one under its own names). */
export type NamedWithSpan<Name extends string> = <T>(
  tracer: Tracer,
  name: Name,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => Promise<T>,
) => Promise<T>;

/** `withSpanSync` held to an app's closed set of span names. */
export type NamedWithSpanSync<Name extends string> = <T>(
  tracer: Tracer,
  name: Name,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => T,
) => T;

/**
 * Runs `fn` inside a new span: a throw sets error status and is re-thrown, and the span always ends
 * in `finally`. `fn` gets the span and the context to parent children on.
 */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => Promise<T>,
): Promise<T> {
  const { span, ctx } = openSpan(tracer, name, options);
  try {
    return await contextApi.with(ctx, () => fn(span, ctx));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `withSpan` for synchronous work (a hot path that must not become a promise): the same span, error
 * status on a throw, and end in `finally`.
 */
export function withSpanSync<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => T,
): T {
  const { span, ctx } = openSpan(tracer, name, options);
  try {
    return contextApi.with(ctx, () => fn(span, ctx));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

function openSpan(tracer: Tracer, name: string, options: SpanOptions): { span: Span; ctx: Context } {
  const parent = options.parent ?? ROOT_CONTEXT;
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

function recordFailure(span: Span, error: unknown): void {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
}

/** Marks a span as failed without a throw (an expected failure such as a failed attempt). */
export function markSpanFailed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
