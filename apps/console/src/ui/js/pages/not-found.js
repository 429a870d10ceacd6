// The page for a route the console does not have: says so instead of showing another page.
import { h, replace } from '../dom.js';

/** Mounts the 404 page for `#/<params…>`. */
export function mount(root, params) {
  replace(
    root,
    h(
      'section',
      { class: 'card', 'data-page': 'not-found' },
      h('h2', {}, 'Page not found'),
      h('p', {}, `There is no console page at #/${params.join('/')}.`),
      h('p', {}, h('a', { href: '#/run' }, 'Go to Run'), ' or pick a page above.'),
    ),
  );
}
