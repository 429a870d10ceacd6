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

  /** Puts records (one per id: the last of an id wins), as one batch. */
  put(...records: InstanceRecord[]): void {
    const latest = new Map(records.map((record) => [record.instance_id, record]));
    const replaced: InstanceRecord[] = [];
    for (const [id, record] of latest) {
      const previous = this.records.get(id);
      if (previous !== undefined) replaced.push(previous);
      this.records.set(id, record);
    }
    this.emit({ put: [...latest.values()], deleted: [], replaced });
  }

  /** Removes ids as one batch (unknown ones too, as a listener must take a delete it never saw a put for). */
  remove(...ids: string[]): void {
    const replaced: InstanceRecord[] = [];
    for (const id of new Set(ids)) {
      const previous = this.records.get(id);
      if (previous !== undefined) replaced.push(previous);
      this.records.delete(id);
    }
    this.emit({ put: [], deleted: ids, replaced });
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
