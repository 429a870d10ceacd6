import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The test Postgres (the harness default when `DATABASE_URL` is not set). */
export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database of its own for one suite, so its traces and notifications meet nobody else's. */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `reach_orch_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
