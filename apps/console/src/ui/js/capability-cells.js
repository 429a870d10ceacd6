// Cells for a capability of GET /api/discovery, shared by the Discovery and Agents pages.
import { badge, h } from './dom.js';

/** Built in, published by live agents (the DNS index lists it), or gone from the index but remembered. */
export const originCell = (c) =>
  c.builtin
    ? badge('pending', 'built-in')
    : c.in_index
      ? badge('ok', 'live')
      : c.in_index === false
        ? badge('unavailable', 'gone')
        : '–';

/** The description, where it came from (built-in, config, card) and the card skills' tags. */
export const descriptionCell = (c) =>
  h(
    'div',
    {},
    c.description ?? '–',
    c.described_by ? h('small', { class: 'muted' }, ` (${c.described_by})`) : '',
    c.tags?.length ? h('div', { class: 'muted' }, `tags: ${c.tags.join(', ')}`) : '',
  );

/** The agents that serve it now. */
export const providersCell = (c) => (c.providers?.length ? c.providers.join(', ') : '–');
