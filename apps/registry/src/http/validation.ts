// Kept as a module so the registry's routes import it as before; the rule lives in the SDK.
export { parseOrThrow, validationError } from '@agent-reach/sdk/http';
