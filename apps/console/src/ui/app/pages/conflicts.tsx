// Conflicts: overlapping declarations of different agents at one priority (seed article 5.2).
import type { ConflictView } from '@agent-reach/sdk/protocol';
import { formatAgo } from '../../../shared/format.js';
import { getJson } from '../api.js';
import { type Column, PageTitle, RouteLink, Show, Table, useLoad } from '../bits.js';

const COLUMNS: Column<ConflictView>[] = [
  { header: 'Capability', cell: (c) => <strong>{c.capability}</strong> },
  { header: 'Domain', cell: (c) => c.domain },
  { header: 'Priority', cell: (c) => String(c.priority), class: 'num' },
  {
    header: 'Agents',
    cell: (c) =>
      c.agents.map((a, i) => (
        <span key={a}>
          {i > 0 ? ', ' : null}
          <RouteLink to={['agents', a]}>{a}</RouteLink>
        </span>
      )),
  },
  {
    header: 'Overlap',
    cell: (c) =>
      c.overlap
        ? `formats ${c.overlap.output_formats?.join(', ') ?? 'any'}; max input ${c.overlap.max_tokens ?? 'any'}`
        : '–',
  },
  { header: 'Instances', cell: (c) => (c.instances ?? []).join(', ') || '–' },
  { header: 'Since', cell: (c) => <span title={c.since}>{formatAgo(c.since)}</span> },
];

/** The Conflicts page. */
export function ConflictsPage() {
  const [loaded] = useLoad(() => getJson<{ conflicts: ConflictView[] }>('/registry/v1/conflicts'), []);
  return (
    <>
      <PageTitle>Conflicts</PageTitle>
      <section class="card" aria-label="conflicts">
        <Show loaded={loaded}>
          {({ conflicts }) => (
            <>
              <Table
                label="conflicts"
                columns={COLUMNS}
                rows={conflicts}
                empty="No conflicts: no two agents claim the same work at the same priority."
                rowKey={(c) => `${c.capability}/${c.agents.join(',')}`}
              />
              {conflicts.length ? (
                <p class="hint">
                  Routing returns only the top agent of a conflicting set until a declaration changes.
                </p>
              ) : null}
            </>
          )}
        </Show>
      </section>
    </>
  );
}
