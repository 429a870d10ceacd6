/** One upstream output in the context the orchestrator sends. */
export interface ContextPart {
  node_id: string;
  capability: string;
  text: string;
}

/** What a catalog agent works from: the task, this node's purpose and the upstream context. */
export interface TaskInput {
  task: string;
  purpose: string;
  context: ContextPart[];
  /** The context as one text, as the orchestrator rendered it. */
  contextText: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Reads an invoke's `input` (a string or `{task, purpose}`) and `context` (a string or `{text, items}`). */
export function readTaskInput(input: unknown, context: unknown): TaskInput {
  const i = (typeof input === 'object' && input !== null ? input : { task: input }) as Record<
    string,
    unknown
  >;
  const task = str(i.task).trim();
  if (task === '') throw new TypeError('input.task must be a non-empty string');
  const c = (typeof context === 'object' && context !== null ? context : { text: context }) as Record<
    string,
    unknown
  >;
  const items = Array.isArray(c.items) ? c.items : [];
  const parts = items
    .filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null)
    .map((x) => ({ node_id: str(x.node_id), capability: str(x.capability), text: str(x.text) }))
    .filter((x) => x.text.trim() !== '');
  return { task, purpose: str(i.purpose).trim(), context: parts, contextText: str(c.text) };
}

/** True when the task is written in Chinese (any CJK ideograph). */
export function isChinese(text: string): boolean {
  return /[\u4e00-\u9fff]/.test(text);
}

/** The task's requirements, split at clause punctuation and conjunctions (at most six). */
export function clauses(task: string): string[] {
  return task
    .split(/[，。；;,.!?！？\n、]|\band\b|并且|以及|并|和/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1)
    .slice(0, 6);
}

/** The first non-empty lines of a text, for quoting upstream output briefly. */
export function leadLines(text: string, count: number): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('<!--'))
    .slice(0, count);
}
