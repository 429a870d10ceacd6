// The event log: one row per trace event, oldest first.
import type { TraceEventWire } from '@agent-reach/sdk/protocol';
import { useEffect, useRef } from 'preact/hooks';
import { summarizeEvent } from '../../shared/event-summary.js';
import { formatClock } from '../../shared/format.js';

function Cells({ event }: { event: TraceEventWire }) {
  return (
    <>
      <span class="event-seq">#{event.seq}</span>
      <span class="event-time">{formatClock(event.at)}</span>
      <span class="event-type">{event.type}</span>
      <span class="event-summary">{summarizeEvent(event)}</span>
    </>
  );
}

/** The events; `detail` makes each row a disclosure with the event's full JSON. */
export function EventLog({ events, detail = false }: { events: TraceEventWire[]; detail?: boolean }) {
  const list = useRef<HTMLOListElement>(null);
  // A live log follows its newest row.
  useEffect(() => {
    if (!detail && list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [events.length, detail]);
  if (events.length === 0) return <p class="empty">No events yet.</p>;
  return (
    <ol class={detail ? 'event-log event-log-full' : 'event-log'} ref={list}>
      {events.map((event) => {
        const bad = event.type.includes('failed') || event.type === 'capability_unavailable';
        return (
          <li key={event.seq} class={`event${bad ? ' event-bad' : ''}`} data-type={event.type}>
            {detail ? (
              <details>
                <summary class="event-line">
                  <Cells event={event} />
                </summary>
                <pre class="event-data">{JSON.stringify(event.data, null, 2)}</pre>
              </details>
            ) : (
              <div class="event-line">
                <Cells event={event} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
