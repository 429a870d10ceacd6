import type { InstanceWeights } from './instance-entry.js';

/** Distinct weights kept for sharing; past this the table starts over (it only saves copies). */
const MAX_SHARED_WEIGHTS = 4096;

/**
 * Equal weights as one object: most instances carry the same few (a handful of objects, ~250 bytes
 * each). The main thread's Zone keeps the weight function's answers so; the responder thread's replica
 * keeps the weights each update decodes so, rather than one copy per instance (which a weight pass
 * promoted to the old space for every instance whose weight moved).
 */
export class SharedWeights {
  private readonly table = new Map<string, InstanceWeights>();
  /** The kept objects: one handed in again (the responder's decoder hands out the same one per text) needs no key. */
  private readonly kept = new Set<InstanceWeights>();

  /** The kept object equal to `weights`, keeping `weights` when none is. */
  intern(weights: InstanceWeights): InstanceWeights {
    if (this.kept.has(weights)) return weights;
    const key = weightsKey(weights);
    const kept = this.table.get(key);
    if (kept !== undefined) return kept;
    if (this.table.size >= MAX_SHARED_WEIGHTS) {
      this.table.clear();
      this.kept.clear();
    }
    this.table.set(key, weights);
    this.kept.add(weights);
    return weights;
  }
}

/** Every priority and weight of `weights` in one string; JSON quoting keeps a capability name apart from the numbers around it. */
function weightsKey({ generic, byCapability }: InstanceWeights): string {
  let key = `${generic.priority} ${generic.weight}`;
  for (const capability in byCapability) {
    const weight = byCapability[capability]!;
    key += ` ${JSON.stringify(capability)} ${weight.priority} ${weight.weight}`;
  }
  return key;
}
