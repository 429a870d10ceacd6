/** Every span the registry opens; a closed set so dashboards can rely on the names. */
export const SPAN_NAMES = ['reach.register', 'reach.route'] as const;

/** One of {@link SPAN_NAMES}. */
export type SpanName = (typeof SPAN_NAMES)[number];

/** The tracer name the registry's spans carry. */
export const TRACER_NAME = '@agent-reach/registry';
