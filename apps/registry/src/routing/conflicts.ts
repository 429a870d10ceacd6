import type { ConflictOverlap, ConflictView } from '@agent-reach/sdk/protocol';
import type { Clock } from '../clock/index.js';
import type { InstanceSource } from '../instances/instance-source.js';
import type { InstanceRecord } from '../store/records.js';

/** One conflict: different agents declaring the same operation in one domain at one priority, none substitutable. */
export interface ConflictEntry {
  key: string;
  domain: string;
  operation: string;
  priority: number;
  agents: string[];
  instances: string[];
  overlap: ConflictOverlap;
  /** Wall-clock milliseconds the conflict was first seen, for display. */
  since: number;
}

interface Offer {
  substitutable: boolean;
  formats: Set<string> | null;
  maxTokens: number | null;
  instances: string[];
}

const groupKey = (domain: string, operation: string, priority: number) =>
  `${domain}|${operation}|${priority}`;

function overlaps(a: Offer, b: Offer): boolean {
  if (a.substitutable || b.substitutable) return false;
  if (a.formats === null || b.formats === null) return true;
  for (const format of a.formats) if (b.formats.has(format)) return true;
  return false;
}

function overlapOf(operation: string, offers: Offer[]): ConflictOverlap {
  let formats: string[] | null = null;
  let maxTokens: number | null = null;
  for (const offer of offers) {
    const declared = offer.formats;
    if (declared) formats = formats === null ? [...declared] : formats.filter((f) => declared.has(f));
    if (offer.maxTokens !== null)
      maxTokens = maxTokens === null ? offer.maxTokens : Math.min(maxTokens, offer.maxTokens);
  }
  return { operation, output_formats: formats === null ? null : formats.sort(), max_tokens: maxTokens };
}

/** The offers of one (domain, operation, priority) group, by agent, from its member instances. */
function offersOf(members: Map<string, Map<string, InstanceRecord>>, operation: string): Map<string, Offer> {
  const agents = new Map<string, Offer>();
  for (const instances of members.values())
    for (const record of instances.values()) {
      const { declaration } = record;
      const spec = declaration.capabilities[operation]!;
      const declared = spec.constraints.output_formats;
      const offer = agents.get(record.agent_name);
      if (!offer) {
        agents.set(record.agent_name, {
          substitutable: declaration.substitutable,
          formats: declared ? new Set(declared) : null,
          maxTokens: spec.constraints.max_tokens ?? null,
          instances: [record.instance_id],
        });
        continue;
      }
      // Instances of one agent mid-rollout: substitutable only if all say so; formats are the union.
      offer.substitutable &&= declaration.substitutable;
      offer.formats = offer.formats && declared ? new Set([...offer.formats, ...declared]) : null;
      offer.instances.push(record.instance_id);
    }
  return agents;
}

/**
 * The live conflicts (seed article 5.2), recomputed after registrations change (once per burst of
 * changes, on the next turn of the event loop, or at once when read). Route consults it to return only
 * the top agent of a conflicting set; `GET /v1/conflicts` lists it. Only groups whose members changed
 * are recomputed, so a registration costs its own groups, not a scan of every instance.
 */
export class ConflictBook {
  private readonly entries = new Map<string, ConflictEntry>();
  private readonly byAgent = new Map<string, ConflictEntry>();
  /** Member instances per group key, by agent (a group of one agent is skipped without reading it). */
  private readonly groups = new Map<string, Map<string, Map<string, InstanceRecord>>>();
  /** The agent and group keys each instance is a member of. */
  private readonly groupsOf = new Map<string, { agent: string; keys: string[] }>();
  /** The conflict entries each group produced last time. */
  private readonly entriesOf = new Map<string, ConflictEntry[]>();
  private readonly dirty = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    source: InstanceSource,
    private readonly clock: Pick<Clock, 'wallNow'>,
  ) {
    for (const record of source.all()) this.place(record);
    this.recompute();
    this.unsubscribe = source.subscribe((changes) => {
      for (const id of changes.deleted) this.remove(id);
      for (const record of changes.put) this.place(record);
      // A registration storm recomputes once, not once per registration.
      this.scheduled ??= setImmediate(() => this.refresh());
    });
  }

  /** The conflict `agent` is part of for this operation, domain and priority, if any. */
  conflictOf(domain: string, operation: string, priority: number, agent: string): ConflictEntry | undefined {
    this.refresh();
    return this.byAgent.get(`${groupKey(domain, operation, priority)}|${agent}`);
  }

  /** Every live conflict, oldest first. */
  list(): ConflictEntry[] {
    this.refresh();
    return [...this.entries.values()].sort((a, b) => a.since - b.since || a.key.localeCompare(b.key));
  }

  /** Calls `listener` after the set of conflicts changed; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.unsubscribe();
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private remove(instanceId: string): void {
    const placed = this.groupsOf.get(instanceId);
    if (!placed) return;
    this.groupsOf.delete(instanceId);
    for (const key of placed.keys) {
      const members = this.groups.get(key)!;
      const instances = members.get(placed.agent)!;
      instances.delete(instanceId);
      if (instances.size === 0) members.delete(placed.agent);
      if (members.size === 0) this.groups.delete(key);
      this.dirty.add(key);
    }
  }

  private place(record: InstanceRecord): void {
    this.remove(record.instance_id);
    const { declaration } = record;
    const keys = Object.keys(declaration.capabilities).map((operation) =>
      groupKey(declaration.domain, operation, declaration.priority),
    );
    this.groupsOf.set(record.instance_id, { agent: record.agent_name, keys });
    for (const key of keys) {
      let members = this.groups.get(key);
      if (!members) {
        members = new Map();
        this.groups.set(key, members);
      }
      let instances = members.get(record.agent_name);
      if (!instances) {
        instances = new Map();
        members.set(record.agent_name, instances);
      }
      instances.set(record.instance_id, record);
      this.dirty.add(key);
    }
  }

  private refresh(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.dirty.size === 0) return;
    this.recompute();
  }

  private recompute(): void {
    let changed = false;
    for (const key of this.dirty) if (this.recomputeGroup(key)) changed = true;
    this.dirty.clear();
    if (changed) for (const listener of this.listeners) listener();
  }

  /** Replaces one group's conflicts; says whether its set of conflict keys changed. */
  private recomputeGroup(key: string): boolean {
    const previous = this.entriesOf.get(key) ?? [];
    for (const entry of previous) {
      this.entries.delete(entry.key);
      for (const agent of entry.agents) this.byAgent.delete(`${key}|${agent}`);
    }
    const members = this.groups.get(key);
    const [domain, operation, priority] = key.split('|') as [string, string, string];
    const next: ConflictEntry[] = [];
    if (members !== undefined && members.size >= 2) {
      const agents = offersOf(members, operation);
      for (const component of components(agents)) {
        const entryKey = `${key}|${component.join(',')}`;
        const offers = component.map((agent) => agents.get(agent)!);
        const entry: ConflictEntry = {
          key: entryKey,
          domain,
          operation,
          priority: Number(priority),
          agents: component,
          instances: offers.flatMap((offer) => offer.instances).sort(),
          overlap: overlapOf(operation, offers),
          since: previous.find((old) => old.key === entryKey)?.since ?? this.clock.wallNow(),
        };
        next.push(entry);
        this.entries.set(entryKey, entry);
        for (const agent of component) this.byAgent.set(`${key}|${agent}`, entry);
      }
    }
    if (next.length > 0) this.entriesOf.set(key, next);
    else this.entriesOf.delete(key);
    return (
      next.length !== previous.length || next.some((entry) => !previous.some((old) => old.key === entry.key))
    );
  }
}

/** Groups of two or more agents linked by pairwise overlap (union-find over one operation group). */
function components(agents: Map<string, Offer>): string[][] {
  const names = [...agents.keys()].sort();
  const parent = new Map(names.map((name) => [name, name]));
  const find = (name: string): string => {
    let root = name;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(name, root);
    return root;
  };
  for (let i = 0; i < names.length; i += 1) {
    for (let j = i + 1; j < names.length; j += 1) {
      if (overlaps(agents.get(names[i]!)!, agents.get(names[j]!)!))
        parent.set(find(names[j]!), find(names[i]!));
    }
  }
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const root = find(name);
    const group = groups.get(root);
    if (group) group.push(name);
    else groups.set(root, [name]);
  }
  return [...groups.values()].filter((group) => group.length > 1);
}

/** The wire view of a conflict. */
export function toConflictView(entry: ConflictEntry): ConflictView {
  return {
    capability: entry.operation,
    domain: entry.domain,
    agents: entry.agents,
    priority: entry.priority,
    since: new Date(entry.since).toISOString(),
    overlap: entry.overlap,
    instances: entry.instances,
  };
}
