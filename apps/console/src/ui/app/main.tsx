// The console shell: skip link, page tabs, a hash router and one page at a time.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleSettings } from '../../shared/console-settings.js';
import { getJson } from './api.js';
import { AgentsPage } from './pages/agents.js';
import { ConflictsPage } from './pages/conflicts.js';
import { DiscoveryPage } from './pages/discovery.js';
import { MetricsPage } from './pages/metrics.js';
import { NotFoundPage } from './pages/not-found.js';
import { RunPage } from './pages/run.js';
import { TracePage } from './pages/trace.js';
import { TracesPage } from './pages/traces.js';
import { parseRoute, type Route } from './route.js';

const TABS = [
  ['run', 'Run'],
  ['traces', 'Traces'],
  ['discovery', 'Discovery'],
  ['agents', 'Agents'],
  ['conflicts', 'Conflicts'],
  ['metrics', 'Metrics'],
] as const;

const PAGES = new Set<string>(TABS.map(([id]) => id));

function Page({ route, settings }: { route: Route; settings: ConsoleSettings }) {
  const { page, params, query } = route;
  switch (page) {
    case 'run':
      return <RunPage params={params} settings={settings} />;
    case 'traces':
      return params.length > 0 ? (
        <TracePage params={params} settings={settings} />
      ) : (
        <TracesPage query={query} />
      );
    case 'discovery':
      return <DiscoveryPage />;
    case 'agents':
      return <AgentsPage params={params} />;
    case 'conflicts':
      return <ConflictsPage />;
    case 'metrics':
      return <MetricsPage />;
    default:
      // An unknown route says so; it never silently shows another page.
      return <NotFoundPage parts={[page, ...params]} />;
  }
}

function App() {
  const [hash, setHash] = useState(location.hash);
  const [settings, setSettings] = useState<ConsoleSettings>({ jaeger_url: null });
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    window.addEventListener('hashchange', onHash);
    getJson<ConsoleSettings>('/console/settings').then(setSettings, () => {});
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const route = parseRoute(hash);
  const tab = PAGES.has(route.page) ? route.page : null;
  // A new page starts at its top.
  useEffect(() => window.scrollTo(0, 0), [route.page, route.params[0]]);
  const key = `${route.page}/${route.page === 'run' ? '' : (route.params[0] ?? '')}`;
  return (
    <>
      <button type="button" class="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href="#/run">
          Agent Reach
        </a>
        <nav class="tabs" id="tabs" aria-label="pages">
          {TABS.map(([id, label]) => (
            <a
              key={id}
              href={`#/${id}`}
              class={id === tab ? 'active' : undefined}
              aria-current={id === tab ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={key} route={route} settings={settings} />
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
// The static "Loading…" placeholder goes; preact owns the container from here.
root.replaceChildren();
render(<App />, root);
