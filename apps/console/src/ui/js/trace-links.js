// Links shared by the run and trace views.
import { h, routeLink } from './dom.js';

/** The Jaeger link for a trace, or null when no Jaeger URL is configured. */
export function jaegerLink(settings, traceId) {
  const base = settings?.jaeger_url;
  if (typeof base !== 'string' || !/^https?:\/\//.test(base)) return null;
  return h(
    'a',
    {
      href: `${base}/trace/${encodeURIComponent(traceId)}`,
      target: '_blank',
      rel: 'noopener noreferrer',
      class: 'jaeger-link',
    },
    'Open in Jaeger',
  );
}

/** The trace id as code, with a link to its trace page. */
export function traceIdLink(traceId) {
  return routeLink(h('code', {}, traceId), 'traces', traceId);
}
