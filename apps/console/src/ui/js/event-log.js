// The event log: one row per trace event, newest last.
import { h } from './dom.js';
import { summarizeEvent } from './event-summary.js';
import { formatClock } from './format.js';

/** One log row; `detail` makes the row a disclosure that opens the event's full JSON. */
export function eventRow(event, detail = false) {
  const kind = event.type.includes('failed') || event.type === 'capability_unavailable' ? ' event-bad' : '';
  const cells = [
    h('span', { class: 'event-seq' }, `#${event.seq}`),
    h('span', { class: 'event-time' }, formatClock(event.at)),
    h('span', { class: 'event-type' }, event.type),
    h('span', { class: 'event-summary' }, summarizeEvent(event)),
  ];
  const attrs = { class: `event${kind}`, 'data-type': event.type };
  if (!detail) return h('li', attrs, h('div', { class: 'event-line' }, cells));
  return h(
    'li',
    attrs,
    h(
      'details',
      {},
      h('summary', { class: 'event-line' }, cells),
      h('pre', { class: 'event-data' }, JSON.stringify(event.data, null, 2)),
    ),
  );
}

/** A list element that events can be appended to. */
export function eventLog(events = [], detail = false) {
  return h(
    'ol',
    { class: detail ? 'event-log event-log-full' : 'event-log' },
    events.map((e) => eventRow(e, detail)),
  );
}
