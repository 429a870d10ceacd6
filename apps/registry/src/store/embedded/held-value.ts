/**
 * A lease-bound value the store keeps as the object its writer made its text from (`PutOp.source`),
 * not as the text: the registry's instance cache holds that object anyway, so a registration record is
 * one object in memory, not that object and its ~650-character JSON beside it. The text is made again
 * from the object when the value is read (get, list, a watch's snapshot, a journal snapshot).
 */
export class HeldValue {
  /** `length` is the text's length, for the store's journal-size count (which never rereads values). */
  constructor(
    readonly source: object,
    readonly length: number,
  ) {}
}

/** A stored value: its text, or the object it is the JSON of. */
export type StoredValue = string | HeldValue;

/** The text of a stored value. */
export const valueText = (value: StoredValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value.source);
