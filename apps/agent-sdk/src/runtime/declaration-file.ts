import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { Declaration, type DeclarationInput, issueText, ReachError } from '../protocol/index.js';

/** Where a declaration comes from: a JSON or YAML file path, or an object already in memory. */
export type DeclarationSource = string | DeclarationInput;

function issuePath(issue: z.core.$ZodIssue): string {
  const keys = 'keys' in issue && Array.isArray(issue.keys) ? issue.keys : [];
  // An unknown key is the field at fault, so name it rather than its parent.
  const path = keys.length === 1 ? [...issue.path, keys[0]] : issue.path;
  return path.length > 0 ? path.map(String).join('.') : '(root)';
}

function invalid(origin: string, message: string, field: string, cause?: unknown): ReachError {
  return new ReachError('INVALID_DECLARATION', `${origin}: ${message}`, {
    data: { field, source: origin },
    ...(cause === undefined ? {} : { cause }),
  });
}

function readSource(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw invalid(path, `cannot read the declaration file (${(cause as Error).message})`, '(file)', cause);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (cause) {
    const kind = extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML';
    throw invalid(path, `not valid ${kind}: ${(cause as Error).message}`, '(file)', cause);
  }
  // `$schema` points editors at declaration.schema.json; it is not part of the declaration.
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && '$schema' in raw) {
    const { $schema: _schema, ...rest } = raw as Record<string, unknown>;
    return rest;
  }
  return raw;
}

/**
 * Loads and validates a capability declaration; throws INVALID_DECLARATION whose message names the field
 * (`data.field`), and also when `expectedAgentName` differs from the file's `agent_name`.
 */
export function loadDeclaration(source: DeclarationSource, expectedAgentName?: string): Declaration {
  const origin = typeof source === 'string' ? source : 'declaration';
  const raw = typeof source === 'string' ? readSource(source) : source;
  const parsed = Declaration.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const detail = issues.map((issue) => `${issuePath(issue)}: ${issueText(issue)}`).join('; ');
    throw invalid(origin, `invalid declaration: ${detail}`, issuePath(issues[0]!));
  }
  if (expectedAgentName !== undefined && parsed.data.agent_name !== expectedAgentName) {
    throw invalid(
      origin,
      `agent_name: the declaration says ${JSON.stringify(parsed.data.agent_name)} but the runtime was built for ${JSON.stringify(expectedAgentName)}`,
      'agent_name',
    );
  }
  return parsed.data;
}
