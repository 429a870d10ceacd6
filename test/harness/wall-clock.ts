import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's libfaketime (package `faketime`), the thread-safe build: Node runs several threads. */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';

/**
 * Moves the wall clock of child processes, and only the wall clock: libfaketime preloaded into the
 * process, its offset read from a file the test rewrites (`FAKETIME_TIMESTAMP_FILE`, re-read at most
 * once a second), with the monotonic clock left alone (`FAKETIME_DONT_FAKE_MONOTONIC`). What a wall
 * clock stepped by NTP or an operator looks like to a process.
 */
export class WallClockShift {
  private readonly dir = mkdtempSync(join(tmpdir(), 'reach-wall-clock-'));
  private readonly file = join(this.dir, 'offset');

  constructor() {
    try {
      accessSync(LIBFAKETIME, constants.R_OK);
    } catch {
      throw new Error(`${LIBFAKETIME} is missing: run \`apt-get install faketime\``);
    }
    this.set(0);
  }

  /** Environment that puts a child process on the shifted wall clock. */
  env(): Record<string, string> {
    return {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      FAKETIME_CACHE_DURATION: '1',
    };
  }

  /** Sets the wall clock of every child started with {@link env} to the real time plus `seconds`. */
  set(seconds: number): void {
    writeFileSync(this.file, `${seconds >= 0 ? '+' : ''}${seconds}\n`);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
