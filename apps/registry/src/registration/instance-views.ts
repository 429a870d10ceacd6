import {
  type DeclarationHistoryEntry,
  type InstanceState,
  type InstanceView,
  publishedCapabilities,
  ReachError,
} from '@agent-reach/sdk/protocol';
import type { LivenessEntry } from '../liveness/liveness-table.js';
import type { InstanceRecord } from '../store/records.js';
import type { RegistrationDeps } from './registration-deps.js';

/** `GET /v1/agents` filters; all optional. */
export interface InstanceFilter {
  capability?: string | undefined;
  state?: InstanceState | undefined;
  agent_name?: string | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** An instance as the API shows it. Times are wall-clock, for display only. */
export function instanceView(
  record: InstanceRecord,
  entry: LivenessEntry,
  state: InstanceState,
): InstanceView {
  const { declaration } = record;
  return {
    instance_id: record.instance_id,
    agent_name: record.agent_name,
    domain: declaration.domain,
    capabilities: [...publishedCapabilities(declaration)],
    declaration_version: declaration.version,
    priority: declaration.priority,
    endpoint: record.endpoint,
    card_url: record.card_url,
    card_sha256: record.card_sha256,
    ...(record.external ? { external: true } : {}),
    state,
    registered_at: iso(record.registered_at),
    last_heartbeat_at: entry.lastBeatWall === null ? null : iso(entry.lastBeatWall),
    last_seq: entry.lastSeq ?? 0,
    load: entry.load,
  };
}

function matches(record: InstanceRecord, filter: InstanceFilter): boolean {
  if (filter.agent_name !== undefined && record.agent_name !== filter.agent_name) return false;
  if (
    filter.capability !== undefined &&
    !publishedCapabilities(record.declaration).includes(filter.capability)
  ) {
    return false;
  }
  return true;
}

/** Builds the read verbs: list and get instances, and an agent's declaration history. */
export function createQueries(deps: RegistrationDeps) {
  const { table, declarations } = deps;

  /** Live instances (healthy and suspect); with a `state` filter also recently gone ones. */
  function list(filter: InstanceFilter = {}): InstanceView[] {
    const now = deps.clock.now();
    const views: InstanceView[] = [];
    for (const entry of table.values()) {
      const state = table.stateOf(entry, now);
      if (filter.state !== undefined && state !== filter.state) continue;
      if (filter.state === undefined && state === 'deregistered') continue;
      if (matches(entry.record, filter)) views.push(instanceView(entry.record, entry, state));
    }
    if (filter.state === 'unavailable' || filter.state === 'deregistered') {
      for (const gone of table.gone()) {
        if (gone.state === filter.state && matches(gone.record, filter)) {
          views.push(instanceView(gone.record, gone.entry, gone.state));
        }
      }
    }
    return views.sort((a, b) => (a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0));
  }

  function get(instanceId: string): InstanceView {
    const entry = table.get(instanceId);
    if (entry) return instanceView(entry.record, entry, table.stateOf(entry));
    const gone = table.tombstone(instanceId);
    if (gone) return instanceView(gone.record, gone.entry, gone.state);
    throw new ReachError('NOT_FOUND', `no instance ${instanceId}`);
  }

  async function declarationHistory(agentName: string): Promise<DeclarationHistoryEntry[]> {
    const history = await declarations.history(agentName);
    if (history.length === 0)
      throw new ReachError('NOT_FOUND', `no declarations recorded for agent ${agentName}`);
    return history;
  }

  return { list, get, declarationHistory };
}
