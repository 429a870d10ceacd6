import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';

const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

function parse(text: string): Result<unknown> {
  try {
    return ok(JSON.parse(text));
  } catch {
    // Models often leave a comma before a closing brace or bracket.
    const repaired = text.replace(/,(\s*[}\]])/g, '$1');
    try {
      return ok(JSON.parse(repaired));
    } catch (cause) {
      return err(new ReachError('INVALID_JSON', 'model output is not JSON', { cause }));
    }
  }
}

/**
 * Pulls one JSON value out of model text: a fenced ```json block first, else the span from the
 * first `{` to the last `}`, each with trailing-comma repair (seed 3.3).
 */
export function extractJson(text: string): Result<unknown> {
  const fenced = FENCE.exec(text)?.[1];
  if (fenced !== undefined) {
    const parsed = parse(fenced.trim());
    if (parsed.ok) return parsed;
  }
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) {
    return err(
      new ReachError('INVALID_JSON', 'model output holds no JSON object', { data: { chars: text.length } }),
    );
  }
  return parse(text.slice(start, end + 1));
}
