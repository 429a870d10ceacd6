import type { DeclarationHistoryEntry, VerifyVersionRequest } from '@agent-reach/sdk/protocol';
import type { RegistrationDeps } from './registration-deps.js';

/** Builds the verify verb: an operator (the `verify_declarations` right) marks a recorded version verified. */
export function createVerifyVersion(deps: Pick<RegistrationDeps, 'authority' | 'declarations'>) {
  return async function verifyVersion(
    agentName: string,
    version: string,
    request: VerifyVersionRequest,
    authorization?: string,
  ): Promise<DeclarationHistoryEntry> {
    const granted = deps.authority.authorizeVerify(authorization);
    if (!granted.ok) throw granted.error;
    return deps.declarations.verify(agentName, version, granted.value.tokenName ?? 'open', request.reason);
  };
}
