// Conflicts: overlapping declarations of different agents at one priority (seed article 5.2).
import { getJson } from '../api.js';
import { errorBox, h, replace, routeLink, table } from '../dom.js';
import { formatAgo } from '../format.js';

const COLUMNS = [
  { header: 'Capability', cell: (c) => h('strong', {}, c.capability) },
  { header: 'Domain', cell: (c) => c.domain },
  { header: 'Priority', cell: (c) => String(c.priority), class: 'num' },
  {
    header: 'Agents',
    cell: (c) => c.agents.flatMap((a, i) => [i > 0 ? ', ' : null, routeLink(a, 'agents', a)]),
  },
  {
    header: 'Overlap',
    cell: (c) =>
      c.overlap
        ? `formats ${c.overlap.output_formats?.join(', ') ?? 'any'}; max input ${c.overlap.max_tokens ?? 'any'}`
        : '–',
  },
  { header: 'Instances', cell: (c) => (c.instances ?? []).join(', ') || '–' },
  { header: 'Since', cell: (c) => h('span', { title: c.since }, formatAgo(c.since)) },
];

/** Mounts the Conflicts page. */
export function mount(root) {
  const body = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  let live = true;
  getJson('/registry/v1/conflicts').then(
    ({ conflicts }) =>
      live &&
      replace(
        body,
        table(COLUMNS, conflicts, 'No conflicts: no two agents claim the same work at the same priority.'),
        conflicts.length
          ? h(
              'p',
              { class: 'hint' },
              'Routing returns only the top agent of a conflicting set until a declaration changes.',
            )
          : null,
      ),
    (error) => live && replace(body, errorBox(error)),
  );
  replace(root, h('section', { class: 'card' }, h('h2', {}, 'Conflicts'), body));
  return () => {
    live = false;
  };
}
