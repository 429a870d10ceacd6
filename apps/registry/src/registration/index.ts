import { createDeregister } from './deregister.js';
import { createHeartbeat } from './heartbeat.js';
import { createQueries } from './instance-views.js';
import { createRegister } from './register.js';
import type { RegistrationDeps } from './registration-deps.js';
import { createVerifyVersion } from './verify-version.js';

export { contentDigest, declarationContent } from './declaration-content.js';
export { DeclarationLog, type DeclarationLogOptions, type VersionCheck } from './declaration-log.js';
export type { DeregisterResponse } from './deregister.js';
export { unknownInstance } from './heartbeat.js';
export { InstanceIdentities } from './instance-identities.js';
export { type InstanceFilter, instanceView } from './instance-views.js';
export { NameOwners } from './name-owners.js';
export { cardUrlOf, type ExternalParts } from './register.js';
export type { RegistrationDeps } from './registration-deps.js';

/** The registration verbs: register, heartbeat, deregister, list, get, declarationHistory, verifyVersion. */
export function createRegistrationVerbs(deps: RegistrationDeps) {
  return {
    register: createRegister(deps),
    heartbeat: createHeartbeat(deps),
    deregister: createDeregister(deps),
    verifyVersion: createVerifyVersion(deps),
    ...createQueries(deps),
  };
}

/** The registration verbs as built by `createRegistrationVerbs`. */
export type RegistrationVerbs = ReturnType<typeof createRegistrationVerbs>;
