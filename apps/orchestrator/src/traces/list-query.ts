import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { z } from 'zod';
import { TraceStatus } from './status.js';
import { TraceId } from './trace-id.js';

const When = z.union([z.date(), z.iso.datetime({ offset: true }).transform((s) => new Date(s))]);

/** Filters and paging for listing traces; newest first. */
export const ListTracesQuery = z
  .object({
    /** One status or several. */
    status: z.union([TraceStatus, z.array(TraceStatus).min(1)]).optional(),
    /** Case-insensitive text search in the task and the summary. */
    q: z.string().trim().min(1).max(200).optional(),
    /** Started at or after. */
    since: When.optional(),
    /** Started before. */
    until: When.optional(),
    /** @default 50 */
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The `next_cursor` of the previous page. */
    cursor: z.string().max(200).optional(),
  })
  .strict();
export type ListTracesQuery = z.input<typeof ListTracesQuery>;

/** Where the previous page ended: the last row's start time and id. */
export interface PageCursor {
  started_at: Date;
  id: string;
}

/** Encodes a page cursor as an opaque URL-safe string. */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.started_at.toISOString(), cursor.id])).toString('base64url');
}

/** Decodes a cursor from `encodeCursor`; BAD_REQUEST when it is not one. */
export function decodeCursor(text: string): Result<PageCursor> {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      TraceId.safeParse(value[1]).success
    ) {
      const started = new Date(value[0]);
      if (!Number.isNaN(started.getTime())) return ok({ started_at: started, id: value[1] as string });
    }
  } catch {}
  return err(
    new ReachError('BAD_REQUEST', 'cursor is not one this API handed out', { data: { cursor: text } }),
  );
}
