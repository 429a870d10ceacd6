import { ReachError } from '@agent-reach/sdk/protocol';
import type { ApiClient } from '../api-client.js';
import type { TraceDetail } from '../orchestrator-views.js';
import { FAULTY_AGENT_NAME, type FaultyAgent, startFaultyAgent } from './faulty-agent.js';
import {
  checkV1,
  checkV2,
  checkV3,
  checkV4,
  checkV5,
  checkV6,
  SEED_TASK,
  type Verdict,
  type VerifyContext,
} from './propositions.js';

/** What `reach verify` needs besides the API client. */
export interface VerifyOptions {
  registryUrl: string;
  /** Bearer token for registering the V3 faulty agent (`REACH_REGISTRY_TOKEN`); null: open registry. */
  registryToken: string | null;
  /** Keep the traces of the verification runs (default: deleted afterwards). */
  keep: boolean;
  /** Progress lines (stderr). */
  progress: (line: string) => void;
  /** Longest one run may take. @default 120000 */
  runTimeoutMs?: number;
}

/** What a verification found, and the runs it started (deleted unless kept). */
export interface VerifyReport {
  verdicts: Verdict[];
  traces: string[];
  kept: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls a trace until it is no longer running. */
async function finished(api: ApiClient, id: string, timeoutMs: number): Promise<TraceDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await api.trace(id);
    if (detail.trace.status !== 'running') return detail;
    if (Date.now() > deadline)
      throw new ReachError('TIMEOUT', `run ${id} still running after ${timeoutMs} ms`);
    await sleep(200);
  }
}

/**
 * Runs the seed's propositions V1–V6 against the live system (seed section 0): V1 and V2 from two
 * discoveries, V4 and V5 from one run of the seed's task, V6 from its two look-alike tasks, V3 from a
 * run with a faulty agent registered for every catalog capability. The system is left as it was:
 * the faulty agent deregistered and, unless `keep`, every trace it started deleted.
 */
export async function runVerify(api: ApiClient, options: VerifyOptions): Promise<VerifyReport> {
  const traces: string[] = [];
  const timeout = options.runTimeoutMs ?? 120_000;
  const ctx: VerifyContext = {
    api,
    run: async (task) => {
      const { trace_id } = await api.start(task);
      traces.push(trace_id);
      return finished(api, trace_id, timeout);
    },
  };
  const verdicts: Verdict[] = [];
  let faulty: FaultyAgent | null = null;
  try {
    options.progress('V1, V2: two discoveries');
    const first = await api.discovery();
    const second = await api.discovery();
    const instances = (await api.agents()).filter((i) => i.state === 'healthy' || i.state === 'suspect');
    verdicts.push(checkV1(first), checkV2(first, second, instances.length));

    options.progress('V4, V5: the seed task');
    const seedRun = await ctx.run(SEED_TASK);
    verdicts.push(checkV4(seedRun), await checkV5(api, seedRun));

    options.progress('V6: the two look-alike tasks');
    verdicts.push(await checkV6(ctx));

    options.progress(`V3: ${FAULTY_AGENT_NAME} registered for every capability, failing every call`);
    const capabilities = Object.keys(first.capabilities);
    faulty = await startFaultyAgent({
      registryUrl: options.registryUrl,
      registryToken: options.registryToken,
      capabilities,
    });
    await untilDiscovered(api, faulty.registration.instanceId, capabilities);
    verdicts.push(await v3Runs(ctx));
  } finally {
    await faulty?.stop().catch(() => undefined);
    if (!options.keep) for (const id of traces) await api.deleteTrace(id).catch(() => undefined);
  }
  return { verdicts: verdicts.sort((a, b) => a.id.localeCompare(b.id)), traces, kept: options.keep };
}

/** Waits until discovery lists the faulty instance for every capability (DNS answers may be reused a while). */
async function untilDiscovered(api: ApiClient, instance: string, capabilities: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const view = await api.discovery();
    const listed = capabilities.every((c) =>
      view.capabilities[c]?.candidates.some((x) => x.instance === instance),
    );
    if (listed) return;
    if (Date.now() > deadline)
      throw new ReachError('TIMEOUT', `discovery never listed ${FAULTY_AGENT_NAME} (${instance})`);
    await sleep(300);
  }
}

/** Up to three runs: the faulty agent is drawn first for most nodes, but the draw is weighted random. */
async function v3Runs(ctx: VerifyContext): Promise<Verdict> {
  for (let i = 0; i < 3; i++) {
    const detail = await ctx.run(SEED_TASK);
    const v = checkV3(detail);
    if (v !== null) return v;
  }
  return {
    id: 'V3',
    title: 'a local fault stays local',
    ok: false,
    ours: `${FAULTY_AGENT_NAME} was never bound first in 3 runs`,
    seed: 'node_attempt_failed → node_retry → another candidate succeeds',
    why: 'the injected fault was never hit, so nothing was proven',
  };
}
