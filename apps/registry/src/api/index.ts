export { agentRoutes } from './agent-routes.js';
export { type AppDeps, createApp } from './create-app.js';
export { probeRoutes, type ReadinessCheck } from './probe-routes.js';
