export { type CardFetch, type CardFetchLimits, type FetchedCard, httpCardFetch } from './card-fetch.js';
export { ExternalAgents, type ExternalAgentsDeps } from './external-agents.js';
export { type ExternalRegistration, externalRegistration } from './external-card.js';
export { externalRoutes } from './external-routes.js';
