import { run } from '../../test/harness/debian-tools.js';
import { type Summary, summarize } from './stats.js';

/** What one dnsperf run measured. */
export interface DnsperfResult {
  qps: number;
  sent: number;
  completed: number;
  lost: number;
  /** Response codes and their counts, e.g. `{ NOERROR: 34325 }`. */
  rcodes: Record<string, number>;
  avgLatencyMs: number;
  avgResponseBytes: number;
  /** Per-query latencies (ms) from `-v`; only when `perQuery` was asked for. */
  latency?: Summary;
}

/** How to drive dnsperf. */
export interface DnsperfOptions {
  seconds: number;
  mode: 'udp' | 'tcp';
  /** Sockets (`-c`). @default 4 */
  clients?: number;
  /** Queries in flight at most (`-q`). @default 100 */
  outstanding?: number;
  /** Offered load cap (`-Q`); none means as fast as the server answers. */
  maxQps?: number;
  /** Pass `-v` and compute latency percentiles from every query's own line. */
  perQuery?: boolean;
}

/** Parses dnsperf 2.x's summary and, with `-v`, its `> RCODE name type seconds` lines. */
export function parseDnsperf(output: string, perQuery: boolean): DnsperfResult {
  const num = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`cannot parse dnsperf output (${re}):\n${output.slice(-3000)}`);
    return Number(m[1]);
  };
  const rcodes: Record<string, number> = {};
  const codes = /Response codes:\s+(.*)/.exec(output)?.[1] ?? '';
  for (const m of codes.matchAll(/([A-Z]+) (\d+)/g)) rcodes[m[1]!] = Number(m[2]);
  const result: DnsperfResult = {
    qps: num(/Queries per second:\s+([\d.]+)/),
    sent: num(/Queries sent:\s+(\d+)/),
    completed: num(/Queries completed:\s+(\d+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    rcodes,
    avgLatencyMs: num(/Average Latency \(s\):\s+([\d.]+)/) * 1000,
    avgResponseBytes: num(/Average packet size:\s+request \d+, response (\d+)/),
  };
  if (perQuery) {
    const latencies: number[] = [];
    for (const m of output.matchAll(/^> \S+ \S+ \S+ ([\d.]+)$/gm)) latencies.push(Number(m[1]) * 1000);
    if (latencies.length === 0)
      throw new Error(`dnsperf -v printed no per-query lines:\n${output.slice(-2000)}`);
    result.latency = summarize(latencies);
  }
  return result;
}

/** Runs dnsperf against 127.0.0.1:`port` with the queries in `queryFile`, for a bounded time. */
export async function dnsperf(
  port: number,
  queryFile: string,
  options: DnsperfOptions,
): Promise<DnsperfResult> {
  const args = [
    '-s',
    '127.0.0.1',
    '-p',
    String(port),
    '-m',
    options.mode,
    '-d',
    queryFile,
    '-l',
    String(options.seconds),
    '-e',
    '-c',
    String(options.clients ?? 4),
    '-q',
    String(options.outstanding ?? 100),
    '-t',
    '2',
  ];
  if (options.maxQps !== undefined) args.push('-Q', String(Math.round(options.maxQps)));
  if (options.perQuery) args.push('-v');
  const output = await run('dnsperf', args, (options.seconds + 20) * 1000);
  return parseDnsperf(output, options.perQuery ?? false);
}
