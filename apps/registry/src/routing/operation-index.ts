import type { Operation } from '@agent-reach/sdk/protocol';
import type { InstanceSource } from '../instances/instance-source.js';
import type { InstanceRecord } from '../store/records.js';
import type { MatchVia } from './score.js';

/** One operation of one instance, filed under a name it answers to. */
export interface IndexedOperation {
  record: InstanceRecord;
  /** The operation's own name (what the caller invokes). */
  operation: string;
  spec: Operation;
  via: MatchVia;
}

/**
 * Declarations compiled once into a map from operation / catalog capability name to offerings
 * (seed article 6.1: "pre-compile declarations instead of parsing them per query").
 * Rebuilt lazily after the instance source reports a change.
 */
export class OperationIndex {
  private byName = new Map<string, IndexedOperation[]>();
  private dirty = true;
  private readonly unsubscribe: () => void;

  constructor(private readonly source: InstanceSource) {
    this.unsubscribe = source.subscribe(() => {
      this.dirty = true;
    });
  }

  /** Every offering that answers to `name`, by operation name or by `serves`. */
  lookup(name: string): readonly IndexedOperation[] {
    if (this.dirty) this.rebuild();
    return this.byName.get(name) ?? [];
  }

  close(): void {
    this.unsubscribe();
  }

  private rebuild(): void {
    const byName = new Map<string, IndexedOperation[]>();
    const file = (name: string, entry: IndexedOperation) => {
      const list = byName.get(name);
      if (list) list.push(entry);
      else byName.set(name, [entry]);
    };
    for (const record of this.source.all()) {
      for (const [operation, spec] of Object.entries(record.declaration.capabilities)) {
        file(operation, { record, operation, spec, via: 'operation' });
        for (const capability of spec.serves) {
          if (capability !== operation) file(capability, { record, operation, spec, via: 'serves' });
        }
      }
    }
    this.byName = byName;
    this.dirty = false;
  }
}
