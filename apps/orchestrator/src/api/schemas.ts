import { z } from 'zod';

/** `POST /api/start` and `POST /api/run` body: the task in plain words (`text`, or `task`) and an optional provider. */
export const RunBody = z
  .object({
    text: z.string().trim().min(1).max(20_000).optional(),
    task: z.string().trim().min(1).max(20_000).optional(),
    provider: z.string().min(1).max(80).optional(),
  })
  .strict()
  .refine((b) => (b.text ?? b.task) !== undefined, {
    message: 'give text: the task in plain words',
    path: ['text'],
  })
  .refine((b) => b.text === undefined || b.task === undefined, {
    message: 'give text or task, not both',
    path: ['task'],
  });
export type RunBody = z.infer<typeof RunBody>;

/** An SSE resume point: `Last-Event-ID` or `?after=`, a seq already received. */
export const AfterSeq = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
