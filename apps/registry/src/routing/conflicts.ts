import type { Clock } from '@agent-reach/sdk/clock';
import type { ConflictOverlap, ConflictView } from '@agent-reach/sdk/protocol';
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

/**
 * One agent's member instances of one (domain, operation, priority) group, with what its offer is
 * made of kept as counts, so reading the offer costs its formats, not its instances.
 */
class AgentMembers {
  readonly instances = new Map<string, InstanceRecord>();
  #notSubstitutable = 0;
  /** Instances that declare no output formats (they accept any). */
  #anyFormat = 0;
  readonly #formats = new Map<string, number>();

  constructor(
    /** The group's key, shared by every member (no string per instance). */
    readonly key: string,
    readonly agent: string,
    private readonly operation: string,
  ) {}

  /** Adds an instance; says whether the agent's offer may have changed (a replica of the same offer does not). */
  add(record: InstanceRecord): boolean {
    const first = this.instances.size === 0;
    this.instances.set(record.instance_id, record);
    return this.#count(record, 1) || first;
  }

  delete(instanceId: string): void {
    const record = this.instances.get(instanceId);
    if (record === undefined) return;
    this.instances.delete(instanceId);
    this.#count(record, -1);
  }

  /** Instances of one agent mid-rollout: substitutable only if all say so; formats are the union; max_tokens is the first instance's. */
  offer(): Offer {
    const first = this.instances.values().next().value as InstanceRecord;
    return {
      substitutable: this.#notSubstitutable === 0,
      formats: this.#anyFormat > 0 ? null : new Set(this.#formats.keys()),
      maxTokens: first.declaration.capabilities[this.operation]!.constraints.max_tokens ?? null,
    };
  }

  /** Counts an instance in or out; says whether a count crossed zero (the offer may have changed). */
  #count(record: InstanceRecord, step: 1 | -1): boolean {
    let crossed = false;
    if (!record.declaration.substitutable) {
      this.#notSubstitutable += step;
      crossed ||= this.#notSubstitutable === (step === 1 ? 1 : 0);
    }
    const declared = record.declaration.capabilities[this.operation]!.constraints.output_formats;
    if (declared === undefined) {
      this.#anyFormat += step;
      return crossed || this.#anyFormat === (step === 1 ? 1 : 0);
    }
    for (const format of new Set(declared)) {
      const count = (this.#formats.get(format) ?? 0) + step;
      if (count === 0) this.#formats.delete(format);
      else this.#formats.set(format, count);
      crossed ||= count === (step === 1 ? 1 : 0);
    }
    return crossed;
  }
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
  private readonly groups = new Map<string, Map<string, AgentMembers>>();
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
      // A record's member sets follow from its declaration (one per operation): the replaced record
      // says which to leave, so no map from instance to record is kept here.
      for (const record of changes.replaced) this.remove(record);
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

  /** Takes out a record `place` placed (the source hands every record that leaves it back once). */
  private remove(record: InstanceRecord): void {
    const { declaration } = record;
    for (const operation of Object.keys(declaration.capabilities)) {
      const key = groupKey(declaration.domain, operation, declaration.priority);
      const members = this.groups.get(key);
      const agent = members?.get(record.agent_name);
      if (members === undefined || agent === undefined) continue;
      agent.delete(record.instance_id);
      if (agent.instances.size === 0) members.delete(agent.agent);
      if (members.size === 0) this.groups.delete(agent.key);
      this.dirty.add(agent.key);
    }
  }

  private place(record: InstanceRecord): void {
    const { declaration } = record;
    for (const operation of Object.keys(declaration.capabilities)) {
      const key = groupKey(declaration.domain, operation, declaration.priority);
      let members = this.groups.get(key);
      if (!members) {
        members = new Map();
        this.groups.set(key, members);
      }
      let agent = members.get(record.agent_name);
      if (!agent) {
        agent = new AgentMembers(key, record.agent_name, operation);
        members.set(record.agent_name, agent);
      }
      // Another replica of an offer the group has: its conflicts stay as they are.
      if (agent.add(record)) this.dirty.add(agent.key);
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
      const offers = new Map([...members].map(([agent, member]) => [agent, member.offer()]));
      for (const component of components(offers)) {
        const entryKey = `${key}|${component.join(',')}`;
        const memberSets = component.map((agent) => members.get(agent)!);
        const entry: ConflictEntry = {
          key: entryKey,
          domain,
          operation,
          priority: Number(priority),
          agents: component,
          // Listed when read, from the live member sets (a replica joins them without a recompute):
          // a registration must not sort a whole group.
          get instances() {
            return memberSets.flatMap((member) => [...member.instances.keys()]).sort();
          },
          overlap: overlapOf(
            operation,
            component.map((agent) => offers.get(agent)!),
          ),
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

/** The root of `name`'s set in a union-find forest, shortening its path on the way. */
function findRoot(parent: Map<string, string>, name: string): string {
  let root = name;
  while (parent.get(root) !== root) root = parent.get(root)!;
  parent.set(name, root);
  return root;
}

/** Groups of two or more agents linked by pairwise overlap (union-find over one operation group). */
function components(agents: Map<string, Offer>): string[][] {
  const names = [...agents.keys()].sort();
  const parent = new Map(names.map((name) => [name, name]));
  for (let i = 0; i < names.length; i += 1) {
    for (let j = i + 1; j < names.length; j += 1) {
      if (overlaps(agents.get(names[i]!)!, agents.get(names[j]!)!))
        parent.set(findRoot(parent, names[j]!), findRoot(parent, names[i]!));
    }
  }
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const root = findRoot(parent, name);
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
