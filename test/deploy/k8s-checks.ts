import { readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { loadConfig, type ReachConfig } from '@agent-reach/config';
import { parseAllDocuments } from 'yaml';

interface EnvVar {
  name: string;
  value?: string;
}
interface VolumeMount {
  name: string;
  mountPath: string;
}
interface Volume {
  name: string;
  configMap?: { name: string };
  secret?: { secretName: string };
}
interface Resources {
  requests?: { cpu?: string; memory?: string };
  limits?: { cpu?: string; memory?: string };
}
/** One container of a pod template, as far as the checks read it. */
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  volumeMounts?: VolumeMount[];
  resources?: Resources;
}
interface ServicePort {
  name?: string;
  port: number;
}
interface IngressPath {
  path: string;
  backend: { service: { name: string; port: { number?: number; name?: string } } };
}
/** The parts of the objects' specs the checks read (kubernetes-models validates the whole shape). */
interface Spec {
  replicas?: number;
  serviceName?: string;
  podManagementPolicy?: string;
  publishNotReadyAddresses?: boolean;
  clusterIP?: string;
  ports?: ServicePort[];
  selector?: { matchLabels?: Record<string, string> } & Record<string, unknown>;
  minAvailable?: number | string;
  template?: {
    metadata?: { labels?: Record<string, string> };
    spec?: { containers?: Container[]; volumes?: Volume[] };
  };
  rules?: Array<{ host?: string; http?: { paths: IngressPath[] } }>;
}
/** A Kubernetes object as written in a manifest. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Spec;
  data?: Record<string, string>;
}

/** Every object of every `*.yaml` in `dir`, in `kubectl apply -f dir` order (file name, then document). */
export function loadManifests(dir: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort())
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const value = doc.toJS() as K8sObject | null;
      if (value) objects.push(value);
    }
  return objects;
}

const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const podOf = (o: K8sObject) => o.spec?.template?.spec ?? {};
const volumesOf = (o: K8sObject): Volume[] => podOf(o).volumes ?? [];
const containersOf = (o: K8sObject): Container[] => podOf(o).containers ?? [];
const workloads = (objects: K8sObject[]) =>
  objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const workloadByImage = (objects: K8sObject[], image: RegExp) =>
  workloads(objects).find((o) => containersOf(o).some((c) => image.test(c.image)));

/**
 * The environment Kubernetes gives a pod: its literal `env`, plus the service links of every Service
 * of the namespace created before it (`NAME_SERVICE_HOST` is the ClusterIP, here a stand-in one).
 */
function podEnv(objects: K8sObject[], workload: K8sObject, container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  const before = objects.slice(0, objects.indexOf(workload));
  let n = 10;
  for (const service of before.filter((o) => o.kind === 'Service' && o.spec?.clusterIP !== 'None')) {
    const prefix = service.metadata.name.toUpperCase().replaceAll('-', '_');
    const ports = service.spec?.ports ?? [];
    env[`${prefix}_SERVICE_HOST`] = `10.96.0.${n++}`;
    if (ports[0]) env[`${prefix}_SERVICE_PORT`] = String(ports[0].port);
    for (const port of ports)
      if (port.name)
        env[`${prefix}_SERVICE_PORT_${port.name.toUpperCase().replaceAll('-', '_')}`] = String(port.port);
  }
  for (const entry of container.env ?? []) if (typeof entry.value === 'string') env[entry.name] = entry.value;
  return env;
}

/** The config file an app's pod reads (`REACH_CONFIG` in the mounted ConfigMap) with its env overrides. */
export function appConfig(objects: K8sObject[], deployment: string): ReachConfig {
  const workload = find(objects, 'Deployment', deployment);
  if (!workload) throw new Error(`no Deployment ${deployment}`);
  const container = containersOf(workload)[0]!;
  const env = podEnv(objects, workload, container);
  const path = env.REACH_CONFIG ?? '';
  const mount = (container.volumeMounts ?? []).find((m) => path.startsWith(`${m.mountPath}/`));
  const volume = volumesOf(workload).find((v) => v.name === mount?.name);
  const map = volume?.configMap && find(objects, 'ConfigMap', volume.configMap.name);
  const text = mount && map?.data?.[path.slice(mount.mountPath.length + 1)];
  if (typeof text !== 'string')
    throw new Error(`${deployment}: REACH_CONFIG ${path} is not a mounted ConfigMap key`);
  return loadConfig({ ...env, REACH_CONFIG: undefined }, text);
}

/** Fault 1: etcd members must come up together and find each other before any of them is Ready. */
export function etcdStartFaults(objects: K8sObject[]): string[] {
  const etcd = workloadByImage(objects, /etcd/);
  if (etcd?.kind !== 'StatefulSet') return ['no etcd StatefulSet'];
  const faults: string[] = [];
  if (etcd.spec?.podManagementPolicy !== 'Parallel')
    faults.push(
      'etcd StatefulSet is OrderedReady: etcd-0 waits for a quorum etcd-1/2 (never created) would form',
    );
  const service = find(objects, 'Service', etcd.spec?.serviceName ?? '');
  if (!service) faults.push(`no governing Service ${etcd.spec?.serviceName}`);
  else if (service.spec?.publishNotReadyAddresses !== true)
    faults.push(
      'the headless Service hides not-ready members: peers cannot resolve each other to form a quorum',
    );
  return faults;
}

/** Fault 2: CoreDNS's `forward` takes IP addresses only (1.11 refuses a name and crash-loops). */
export function corednsForwardFaults(objects: K8sObject[]): string[] {
  const coredns = workloadByImage(objects, /coredns/);
  if (!coredns) return ['no CoreDNS Deployment'];
  const container = containersOf(coredns).find((c) => /coredns/.test(c.image))!;
  const env = podEnv(objects, coredns, container);
  const volume = volumesOf(coredns).find((v) => v.configMap);
  const corefile = find(objects, 'ConfigMap', volume?.configMap?.name ?? '')?.data?.Corefile ?? '';
  const faults: string[] = [];
  for (const line of corefile.split('\n')) {
    const match = /^\s*forward\s+\S+\s+(.+)$/.exec(line);
    if (!match) continue;
    for (const raw of match[1]!
      .replace(/\{\s*$/, '')
      .trim()
      .split(/\s+/)) {
      const target = raw.replace(/\{\$(\w+)\}/g, (_, name: string) => env[name] ?? `<unset ${name}>`);
      const host = target
        .replace(/^(dns|tls):\/\//, '')
        .replace(/:\d+$/, '')
        .replace(/^\[|\]$/g, '');
      if (isIP(host) === 0) faults.push(`forward to ${target} (from ${raw}) is not an IP address`);
    }
  }
  return faults;
}

/** Fault 3: Postgres's data directory must be a subdirectory of its volume (lost+found breaks initdb). */
export function postgresDataFaults(objects: K8sObject[]): string[] {
  const postgres = workloadByImage(objects, /^postgres/);
  if (!postgres) return ['no Postgres workload'];
  const container = containersOf(postgres).find((c) => /^postgres/.test(c.image))!;
  const pgdata = (container.env ?? []).find((e) => e.name === 'PGDATA')?.value ?? '/var/lib/postgresql/data';
  const mounts: string[] = (container.volumeMounts ?? []).map((m) => m.mountPath.replace(/\/$/, ''));
  if (mounts.includes(pgdata.replace(/\/$/, '')))
    return [`PGDATA ${pgdata} is the volume's root: initdb fails on its lost+found`];
  if (!mounts.some((m) => pgdata.startsWith(`${m}/`))) return [`PGDATA ${pgdata} is not on a volume`];
  return [];
}

/** Fault 4: the orchestrator must report call outcomes to a registry Service that exists. */
export function orchestratorRegistryFaults(objects: K8sObject[]): string[] {
  const url = appConfig(objects, 'orchestrator').orchestrator.registry_url;
  if (url === undefined) return ['orchestrator.registry_url is unset: call outcomes never reach routing'];
  const { hostname, port } = new URL(url);
  const [name, namespace] = hostname.split('.');
  const service = find(objects, 'Service', name ?? '');
  if (!service || (namespace !== undefined && namespace !== service.metadata.namespace))
    return [`orchestrator.registry_url ${url} names no Service`];
  if (!(service.spec?.ports ?? []).some((p) => String(p.port) === (port || '80')))
    return [`Service ${name} has no port ${port}`];
  return [];
}

export { containersOf, find, podEnv, volumesOf, workloadByImage, workloads };
