/** `reach verify`: the seed's propositions V1–V6 checked on the live system. */
export { formatVerify } from './format-verify.js';
export type { Verdict } from './propositions.js';
export { runVerify, type VerifyOptions, type VerifyReport } from './verify.js';
