/** A compiled capability grant pattern: `*` (everything), `text_*` (a prefix) or an exact id. */
export type CapabilityMatcher = (capability: string) => boolean;

/** Compiles one grant pattern; `*` matches any run of characters, anywhere in the pattern. */
export function compileCapabilityPattern(pattern: string): CapabilityMatcher {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) return (capability) => capability === pattern;
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  const regex = new RegExp(`^${parts.join('.*')}$`);
  return (capability) => regex.test(capability);
}

/** Compiles a token's patterns into one matcher that accepts a capability when any pattern does. */
export function compileGrant(patterns: readonly string[]): CapabilityMatcher {
  const matchers = patterns.map(compileCapabilityPattern);
  return (capability) => matchers.some((match) => match(capability));
}
