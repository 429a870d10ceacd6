/** The one span helper: a span per call that records a throw as error status and always ends. */
export { markSpanFailed, type SpanOptions, withSpan } from './with-span.js';
