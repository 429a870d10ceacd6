import { agentCardDigest } from '@agent-reach/sdk/svcb';
import type { InstanceChanges, InstanceSource } from '../instances/instance-source.js';
import { InstanceRecord } from '../store/records.js';

/** A hand-driven InstanceSource for unit tests: `put` and `remove` notify subscribers synchronously. */
export class FakeInstanceSource implements InstanceSource {
  private readonly records = new Map<string, InstanceRecord>();
  private readonly listeners = new Set<(changes: InstanceChanges) => void>();

  all(): InstanceRecord[] {
    return [...this.records.values()];
  }

  get(instanceId: string): InstanceRecord | undefined {
    return this.records.get(instanceId);
  }

  subscribe(listener: (changes: InstanceChanges) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  put(...records: InstanceRecord[]): void {
    for (const record of records) this.records.set(record.instance_id, record);
    this.emit({ put: records, deleted: [] });
  }

  remove(...ids: string[]): void {
    for (const id of ids) this.records.delete(id);
    this.emit({ put: [], deleted: ids });
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  private emit(changes: InstanceChanges): void {
    for (const listener of this.listeners) listener(changes);
  }
}

/** A valid registration record for tests. */
export function makeInstance(
  id: string,
  options: {
    host?: string;
    port?: number;
    capabilities?: string[];
    serves?: string[];
    priority?: number;
  } = {},
): InstanceRecord {
  const host = options.host ?? '10.0.0.1';
  const port = options.port ?? 9000;
  const capabilities = options.capabilities ?? ['summarize'];
  const agentName = id.replace(/-[^-]*$/, '') || id;
  return InstanceRecord.parse({
    instance_id: id,
    agent_name: agentName.length >= 2 ? agentName : `${agentName}x`,
    declaration: {
      agent_name: agentName.length >= 2 ? agentName : `${agentName}x`,
      domain: 'text',
      priority: options.priority ?? 50,
      capabilities: Object.fromEntries(capabilities.map((c) => [c, { serves: options.serves ?? [] }])),
    },
    endpoint: { host, port },
    card_url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/.well-known/agent-card.json`,
    card_sha256: agentCardDigest(`card of ${id}`),
    lease_token_hash: 'x'.repeat(64),
    lease_id: `lease-${id}`,
    registered_at: 0,
  });
}
