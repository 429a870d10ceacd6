import type { z } from 'zod';

/**
 * A zod issue's message, with the rule a record key broke ("Invalid key in record" alone does not say
 * which rule): the one place issue text is made for API errors and declaration files alike.
 */
export function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues.length > 0)
    return `${issue.message}: ${issue.issues.map((inner) => inner.message).join('; ')}`;
  return issue.message;
}
