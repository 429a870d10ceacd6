/** Where the registry keeps each kind of record in the store. */
export const KEYS = {
  /** Live registrations, each bound to its instance's lease. */
  instancesPrefix: '/reach/instances/',
  instance: (instanceId: string) => `/reach/instances/${instanceId}`,
  /** Durable declaration history: never bound to a lease. */
  declarationsPrefix: '/reach/declarations/',
  declarationsOf: (agentName: string) => `/reach/declarations/${agentName}/`,
  declaration: (agentName: string, recordedAtMs: number, version: string) =>
    `/reach/declarations/${agentName}/${String(recordedAtMs).padStart(15, '0')}-${version}`,
  /** Verification of a declaration version (never leased): by its successful calls or by an operator. */
  verificationsPrefix: '/reach/verified/',
  verificationsOf: (agentName: string) => `/reach/verified/${agentName}/`,
  verification: (agentName: string, version: string) => `/reach/verified/${agentName}/${version}`,
  /** Successful calls each replica counted for an unverified version (its own key, so replicas never race). */
  versionCallsPrefix: '/reach/version-calls/',
  versionCallsOf: (agentName: string) => `/reach/version-calls/${agentName}/`,
  versionCalls: (agentName: string, version: string, replicaId: string) =>
    `/reach/version-calls/${agentName}/${version}/${replicaId}`,
  /** Which registry token owns each agent name (bound by its first registration; never leased). */
  ownersPrefix: '/reach/owners/',
  owner: (agentName: string) => `/reach/owners/${agentName}`,
  /**
   * The lease-token hash of each instance id, kept past its lease (never leased) so an agent whose
   * lease ran out can re-register under the same id; removed on deregistration or after a retention.
   */
  identitiesPrefix: '/reach/identities/',
  identity: (instanceId: string) => `/reach/identities/${instanceId}`,
  /** Dynamic routing weights the leader publishes, per instance. */
  weightsPrefix: '/reach/weights/',
  weight: (instanceId: string) => `/reach/weights/${instanceId}`,
  /**
   * Liveness facts (last seq, last beat, load) a replica accepted, written by it in numbered batches of
   * many instances, bound to a lease of that replica: `…/<replicaId>/<n>`.
   */
  livenessPrefix: '/reach/liveness/',
  livenessOf: (replicaId: string) => `/reach/liveness/${replicaId}/`,
  livenessBatch: (replicaId: string, n: number) => `/reach/liveness/${replicaId}/${n}`,
  /**
   * Hourly route and call counts per capability, one key per replica process (never leased; the
   * leader deletes days past the retention): `…/<yyyy-mm-dd>/<hh>/<capability>/<writer>`.
   */
  routeHistoryPrefix: '/reach/governance/routes/',
  routeHistoryDay: (day: string) => `/reach/governance/routes/${day}/`,
  routeHistory: (hourStartMs: number, capability: string, writer: string) => {
    const iso = new Date(hourStartMs).toISOString();
    return `/reach/governance/routes/${iso.slice(0, 10)}/${iso.slice(11, 13)}/${capability}/${writer}`;
  },
  /** CoreDNS etcd plugin (SkyDNS message format) root. */
  skydnsPrefix: '/skydns/',
  /** Leader election name for sweeps, reports and weight publication. */
  leaderElection: 'reach-registry-leader',
} as const;
