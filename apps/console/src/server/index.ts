/** The console's web server: static UI plus the orchestrator and registry behind one origin. */
export { ConsoleMetrics } from './console-metrics.js';
export { type ConsoleAppDeps, createConsoleApp } from './create-console-app.js';
export { type ProxyTarget, proxyTo } from './proxy.js';
export { type RunningConsole, startConsole } from './serve.js';
export { staticFiles } from './static-files.js';
export { buildUi, UI_SOURCE_DIR, type UiFile, type UiFiles } from './ui-bundle.js';
