/** The Agent Reach console: web server, config, and the API client the `reach` CLI uses. */
export * from './config.js';
export * from './server/index.js';
