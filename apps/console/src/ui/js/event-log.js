// The event log: one row per trace event, newest last.
import { h } from './dom.js';
import { summarizeEvent } from './event-summary.js';
import { formatClock } from './format.js';

/** One log row; `detail` adds the event's full JSON in a disclosure. */
export function eventRow(event, detail = false) {
  const kind = event.type.includes('failed') || event.type === 'capability_unavailable' ? ' event-bad' : '';
  return h(
    'li',
    { class: `event${kind}`, 'data-type': event.type },
    h('span', { class: 'event-seq' }, `#${event.seq}`),
    h('span', { class: 'event-time' }, formatClock(event.at)),
    h('span', { class: 'event-type' }, event.type),
    h('span', { class: 'event-summary' }, summarizeEvent(event)),
    detail
      ? h(
          'details',
          { class: 'event-data' },
          h('summary', {}, 'data'),
          h('pre', {}, JSON.stringify(event.data, null, 2)),
        )
      : null,
  );
}

/** A list element that events can be appended to. */
export function eventLog(events = [], detail = false) {
  return h(
    'ol',
    { class: 'event-log' },
    events.map((e) => eventRow(e, detail)),
  );
}
