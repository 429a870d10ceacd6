import type { ConflictOverlap, ConflictView } from '@agent-reach/sdk/protocol';
import type { Clock } from '../clock/index.js';
import type { InstanceSource } from '../instances/instance-source.js';

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

/**
 * The live conflicts (seed article 5.2), recomputed after registrations change (once per burst of
 * changes, on the next turn of the event loop, or at once when read). Route consults it to return only
 * the top agent of a conflicting set; `GET /v1/conflicts` lists it.
 */
export class ConflictBook {
  private entries = new Map<string, ConflictEntry>();
  private byAgent = new Map<string, ConflictEntry>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private dirty = false;
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly source: InstanceSource,
    private readonly clock: Pick<Clock, 'wallNow'>,
  ) {
    this.recompute();
    this.unsubscribe = source.subscribe(() => {
      this.dirty = true;
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

  private refresh(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.recompute();
  }

  private recompute(): void {
    const groups = new Map<string, Map<string, Offer>>();
    for (const record of this.source.all()) {
      const { declaration } = record;
      for (const [operation, spec] of Object.entries(declaration.capabilities)) {
        const key = groupKey(declaration.domain, operation, declaration.priority);
        let agents = groups.get(key);
        if (!agents) {
          agents = new Map();
          groups.set(key, agents);
        }
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
    }
    const next = new Map<string, ConflictEntry>();
    const byAgent = new Map<string, ConflictEntry>();
    for (const [key, agents] of groups) {
      if (agents.size < 2) continue;
      for (const component of components(agents)) {
        const [domain, operation, priority] = key.split('|') as [string, string, string];
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
          since: this.entries.get(entryKey)?.since ?? this.clock.wallNow(),
        };
        next.set(entryKey, entry);
        for (const agent of component) byAgent.set(`${key}|${agent}`, entry);
      }
    }
    const changed = next.size !== this.entries.size || [...next.keys()].some((key) => !this.entries.has(key));
    this.entries = next;
    this.byAgent = byAgent;
    if (changed) for (const listener of this.listeners) listener();
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
