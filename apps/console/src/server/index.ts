/** The console's web server: static UI plus the orchestrator and registry behind one origin. */
export { ConsoleMetrics } from './console-metrics.js';
export { type ConsoleAppDeps, createConsoleApp, UI_DIR } from './create-console-app.js';
export { type ProxyTarget, proxyTo } from './proxy.js';
export { type RunningConsole, startConsole } from './serve.js';
export { staticFiles } from './static-files.js';
