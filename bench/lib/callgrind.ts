import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The command to run node under for counting instructions: callgrind with instrumentation off until
 * `callgrindControl(pid, ['-i', 'on'])` (node starts ~10× slower under valgrind even so), and checks
 * for self-modifying code (V8's JIT) everywhere but in files.
 */
export function callgrindLauncher(outFile: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${outFile}`,
  ];
}

/**
 * Runs `callgrind_control <args> <pid>`. It waits for valgrind to poll for its command, which a
 * process idle in its event loop does not do: `poke` is called over and over meanwhile to wake it
 * (e.g. a request to the process), and stops once the command has been answered.
 */
export async function callgrindControl(
  pid: number,
  args: string[],
  poke: () => Promise<unknown>,
): Promise<string> {
  let done = false;
  const poking = (async () => {
    while (!done) await poke().catch(() => undefined);
  })();
  try {
    return (await run('callgrind_control', [...args, String(pid)])).stdout;
  } finally {
    done = true;
    await poking;
  }
}

/** `callgrind_control -e Ir` output (`Th 1  313,087,435` lines) as instructions by thread. */
export function threadInstructions(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const [, thread, ir] of text.matchAll(/Th\s*(\d+)\s+([\d,]+)/g))
    counts.set(Number(thread), Number(ir!.replaceAll(',', '')));
  return counts;
}

/** Instructions each thread ran between two `threadInstructions` reads (threads started since count from 0). */
export function instructionsBetween(
  before: Map<number, number>,
  after: Map<number, number>,
): Map<number, number> {
  const delta = new Map<number, number>();
  for (const [thread, ir] of after) delta.set(thread, ir - (before.get(thread) ?? 0));
  return delta;
}
