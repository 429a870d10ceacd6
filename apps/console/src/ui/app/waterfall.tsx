// A trace's span waterfall: the run, discovery, planning and every node as bars on one time axis.
import { formatMs } from '../../shared/format.js';
import type { RunState } from './run-state.js';
import { spanBars } from './run-state.js';

/** The waterfall of `state`; bars still open run up to `now`. */
export function Waterfall({ state, now = Date.now() }: { state: RunState; now?: number }) {
  const bars = spanBars(state);
  if (bars.length === 0) return <p class="empty">No events yet.</p>;
  const open = state.startedAt === null ? 0 : Math.max(0, now - state.startedAt);
  const total = Math.max(1, ...bars.map((b) => b.end ?? open));
  const pct = (ms: number) => `${((ms / total) * 100).toFixed(2)}%`;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <figure class="waterfall" aria-label="span waterfall">
      <div class="wf-row wf-axis">
        <span class="wf-label">span</span>
        <span class="wf-track">
          {ticks.map((t) => (
            <span key={t} class="wf-tick" style={{ left: pct(t * total) }}>
              {formatMs(t * total)}
            </span>
          ))}
        </span>
      </div>
      {bars.map((b) => {
        const end = b.end ?? open;
        return (
          <div class={`wf-row wf-${b.kind}`} key={b.id} data-span={b.id} data-state={b.state}>
            <span class="wf-label" title={b.detail}>
              {b.label}
            </span>
            <span class="wf-track">
              <span
                class={`wf-bar wf-bar-${b.state}${b.end === null ? ' wf-open' : ''}`}
                style={{ left: pct(b.start), width: `max(2px, ${pct(Math.max(0, end - b.start))})` }}
                title={`${b.label}: ${formatMs(b.start)} → ${b.end === null ? 'running' : formatMs(end)}`}
              />
              <span class="wf-time">
                {b.end === null ? `${formatMs(end - b.start)}…` : formatMs(end - b.start)}
              </span>
            </span>
          </div>
        );
      })}
    </figure>
  );
}
