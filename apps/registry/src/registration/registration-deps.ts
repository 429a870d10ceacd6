import type { Clock } from '@agent-reach/sdk/clock';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { TokenAuthority } from '../auth/token-authority.js';
import type { RegistryConfig } from '../config.js';
import type { LocalWrites } from '../instances/instance-cache.js';
import type { InstanceSource } from '../instances/instance-source.js';
import type { LivenessEntry, LivenessTable } from '../liveness/liveness-table.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistryStore } from '../store/store.js';
import type { SkydnsTarget } from '../weights/instance-skydns.js';
import type { DeclarationLog } from './declaration-log.js';
import type { InstanceIdentities } from './instance-identities.js';
import type { NameOwners } from './name-owners.js';

/** What the registration verbs work with; every part is injected. */
export interface RegistrationDeps {
  config: RegistryConfig;
  store: RegistryStore;
  instances: InstanceSource & LocalWrites;
  table: LivenessTable;
  /** Shares accepted heartbeats with the other replicas (`SharedFacts`); none: this replica alone. */
  facts?: { note(entry: LivenessEntry): void };
  authority: TokenAuthority;
  declarations: DeclarationLog;
  /** Agent-name ownership by registry token. */
  owners: NameOwners;
  /** Instance ids kept past their lease, so a re-registration can keep its id. */
  identities: InstanceIdentities;
  metrics: RegistryMetrics;
  clock: Clock;
  logger: Logger;
  /** Where the instance's SkyDNS projection goes; none: the store gets no projection (`skydnsTargetOf`). */
  skydns?: SkydnsTarget;
  /** Opens a `reach.register` span per registration (when OTLP export is configured). */
  tracer?: Tracer;
}
