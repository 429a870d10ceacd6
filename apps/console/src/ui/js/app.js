// The console shell: tabs, a hash router, and one page mounted at a time.
import { getJson } from './api.js';
import { h, replace } from './dom.js';
import * as agents from './pages/agents.js';
import * as conflicts from './pages/conflicts.js';
import * as discovery from './pages/discovery.js';
import * as metrics from './pages/metrics.js';
import * as notFound from './pages/not-found.js';
import * as run from './pages/run.js';
import * as trace from './pages/trace.js';
import * as traces from './pages/traces.js';

const TABS = [
  ['run', 'Run'],
  ['traces', 'Traces'],
  ['discovery', 'Discovery'],
  ['agents', 'Agents'],
  ['conflicts', 'Conflicts'],
  ['metrics', 'Metrics'],
];

/** `#/<tab>/<param>…` → the page module and its decoded params. */
function route(hash) {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const [tab = 'run', ...params] = parts;
  if (tab === 'traces' && params.length > 0) return { tab, page: trace, params };
  const pages = { run, traces, discovery, agents, conflicts, metrics };
  // An unknown route says so; it never silently shows another page.
  return Object.hasOwn(pages, tab)
    ? { tab, page: pages[tab], params }
    : { tab: null, page: notFound, params: parts };
}

const main = document.getElementById('main');
const nav = document.getElementById('tabs');
const ctx = { settings: { jaeger_url: null } };
let cleanup = () => {};

function show() {
  const { tab, page, params } = route(location.hash);
  cleanup();
  replace(
    nav,
    TABS.map(([id, label]) =>
      h(
        'a',
        { href: `#/${id}`, class: id === tab ? 'active' : null, 'aria-current': id === tab ? 'page' : null },
        label,
      ),
    ),
  );
  main.replaceChildren();
  cleanup = page.mount(main, params, ctx) ?? (() => {});
}

window.addEventListener('hashchange', show);
getJson('/console/settings')
  .then((settings) => {
    ctx.settings = settings;
  })
  .catch(() => {})
  .finally(show);
