import type { LivenessEntry } from '../liveness/liveness-table.js';
import { KEYS } from '../store/keys.js';
import { InstanceRecord } from '../store/records.js';
import type { RegistrationDeps } from './registration-deps.js';

/**
 * The liveness entry of a live instance: from the table, else from the watch cache, else (the watch
 * may lag a registration made on another replica) straight from the store. Undefined when unknown.
 */
export async function resolveInstance(
  deps: Pick<RegistrationDeps, 'table' | 'instances' | 'store'>,
  instanceId: string,
): Promise<LivenessEntry | undefined> {
  const tracked = deps.table.get(instanceId);
  if (tracked) return tracked;
  const cached = deps.instances.get(instanceId);
  if (cached) return deps.table.track(cached, false);
  const stored = await deps.store.get(KEYS.instance(instanceId));
  if (stored === null) return undefined;
  try {
    const parsed = InstanceRecord.safeParse(JSON.parse(stored));
    return parsed.success ? deps.table.track(parsed.data, false) : undefined;
  } catch {
    return undefined;
  }
}
