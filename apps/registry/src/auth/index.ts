export { type CapabilityMatcher, compileCapabilityPattern, compileGrant } from './capability-pattern.js';
export { bearerToken, hashLeaseToken, leaseTokenMatches, newLeaseToken } from './lease-token.js';
export { type Caller, TokenAuthority } from './token-authority.js';
