// Cells for a capability of `GET /api/discovery`, shared by the Discovery and Agents pages.
import type { CapabilityView } from '@agent-reach/sdk/protocol';
import { Badge } from './bits.js';

/** Built in, published by live agents (the DNS index lists it), or gone from the index but remembered. */
export const originCell = (c: CapabilityView) =>
  c.builtin ? (
    <Badge state="pending" text="built-in" />
  ) : c.in_index ? (
    <Badge state="succeeded" text="live" />
  ) : (
    <Badge state="unavailable" text="gone" />
  );

/** The description, where it came from (built-in, config, card) and the card skills' tags. */
export const descriptionCell = (c: CapabilityView) => (
  <div>
    {c.description || '–'}
    {c.described_by ? <small class="muted"> ({c.described_by})</small> : null}
    {c.tags.length ? <div class="muted">tags: {c.tags.join(', ')}</div> : null}
  </div>
);

/** The agents that serve it now. */
export const providersCell = (c: CapabilityView) => (c.providers.length ? c.providers.join(', ') : '–');
