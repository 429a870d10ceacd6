import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/registry-process.js';
import {
  appConfig,
  containersOf,
  corednsForwardFaults,
  etcdStartFaults,
  find,
  type K8sObject,
  loadManifests,
  orchestratorRegistryFaults,
  postgresDataFaults,
  volumesOf,
  workloadByImage,
  workloads,
} from './k8s-checks.js';

const manifests = loadManifests(join(REPO_ROOT, 'deploy/k8s'));
// The manifests as they were before the fixes: each fault check must find its fault there.
const before = loadManifests(join(REPO_ROOT, 'test/deploy/fixtures/k8s-before'));

describe('deploy/k8s objects', () => {
  it('every object validates against the Kubernetes schemas (kubernetes-models)', async () => {
    expect(manifests.length).toBeGreaterThan(15);
    for (const object of manifests) {
      const module = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<
        string,
        new (
          data: K8sObject,
        ) => { validate(): void }
      >;
      const Model = module[object.kind];
      expect(Model, `${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object).validate(), `${object.kind}/${object.metadata.name}`).not.toThrow();
    }
  });

  it('the validator is not a rubber stamp: a malformed object fails', async () => {
    const { Deployment } = await import('kubernetes-models/apps/v1/Deployment');
    const broken = structuredClone(find(manifests, 'Deployment', 'registry')) as unknown as Record<
      string,
      unknown
    >;
    (broken.spec as Record<string, unknown>).replicas = 'two';
    expect(() => new Deployment(broken as never).validate()).toThrow();
  });
});

describe('deploy/k8s starts (each fault of the earlier manifests)', () => {
  it('etcd: members start in parallel and find each other before quorum', () => {
    expect(etcdStartFaults(before)).toHaveLength(2);
    expect(etcdStartFaults(manifests)).toEqual([]);
  });

  it('CoreDNS: forward goes to an IP address (the registry DNS Service’s ClusterIP)', () => {
    expect(corednsForwardFaults(before)).toEqual([
      expect.stringMatching(/registry-dns\.agent-reach.* is not an IP/),
    ]);
    expect(corednsForwardFaults(manifests)).toEqual([]);
  });

  it('Postgres: PGDATA is a subdirectory of the volume', () => {
    expect(postgresDataFaults(before)).toEqual([expect.stringMatching(/lost\+found/)]);
    expect(postgresDataFaults(manifests)).toEqual([]);
  });

  it('orchestrator: registry_url is set to the registry Service', () => {
    expect(orchestratorRegistryFaults(before)).toEqual([expect.stringMatching(/unset/)]);
    expect(orchestratorRegistryFaults(manifests)).toEqual([]);
  });
});

describe('deploy/k8s production shape', () => {
  it('etcd serves clients over TLS with client certificates, and the registry and CoreDNS present one', () => {
    const etcd = workloadByImage(manifests, /etcd/)!;
    const command = containersOf(etcd)[0]!.command ?? [];
    expect(command).toContain('--client-cert-auth');
    expect(command.some((a) => a.startsWith('--trusted-ca-file='))).toBe(true);
    expect(command.find((a) => a.startsWith('--listen-client-urls='))).toMatch(/=https:/);
    const storage = appConfig(manifests, 'registry').storage;
    expect(storage.type).toBe('etcd');
    for (const endpoint of storage.etcd.endpoints) expect(endpoint).toMatch(/^https:\/\//);
    const tls = storage.etcd.tls!;
    // The files the config names come from a mounted Secret, with the keys that Secret holds.
    const registry = find(manifests, 'Deployment', 'registry')!;
    for (const file of [tls.ca_file, tls.cert_file!, tls.key_file!]) {
      // The deepest mount holding the file (the Secret is mounted inside the config's directory).
      const mount = containersOf(registry)[0]!
        .volumeMounts!.filter((m) => file.startsWith(`${m.mountPath}/`))
        .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
      const volume = volumesOf(registry).find((v) => v.name === mount?.name);
      expect(volume?.secret?.secretName, file).toBe('etcd-client-tls');
    }
    const corefile = find(manifests, 'ConfigMap', 'coredns')!.data!.Corefile!;
    expect(corefile).toMatch(/endpoint https:\/\//);
    expect(corefile).toMatch(/^\s+tls \S+ \S+ \S+$/m);
  });

  it('make-etcd-certs.sh makes certificates that fit: server names of every member, a client certificate from the same CA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-k8s-certs-'));
    try {
      await promisify(execFile)(join(REPO_ROOT, 'deploy/k8s/make-etcd-certs.sh'), ['--out', dir]);
      const { stdout } = await promisify(execFile)('openssl', [
        'x509',
        '-in',
        join(dir, 'server.crt'),
        '-noout',
        '-ext',
        'subjectAltName',
      ]);
      for (const endpoint of appConfig(manifests, 'registry').storage.etcd.endpoints) {
        const host = new URL(endpoint).hostname;
        const covered = stdout.split(/,\s*/).some((san) => {
          const name = san.trim().replace(/^[\s\S]*DNS:/, '');
          return name === host || (name.startsWith('*.') && host.slice(host.indexOf('.')) === name.slice(1));
        });
        expect(covered, `${host} in ${stdout}`).toBe(true);
      }
      const verified = await promisify(execFile)('openssl', [
        'verify',
        '-CAfile',
        join(dir, 'ca.crt'),
        join(dir, 'client.crt'),
      ]);
      expect(verified.stdout).toMatch(/OK/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('two or more registries with a PodDisruptionBudget, two or more orchestrators', () => {
    for (const app of ['registry', 'orchestrator']) {
      const deployment = find(manifests, 'Deployment', app)!;
      expect(deployment.spec?.replicas, app).toBeGreaterThanOrEqual(2);
      const labels = deployment.spec?.template?.metadata?.labels ?? {};
      const pdb = manifests.find(
        (o) =>
          o.kind === 'PodDisruptionBudget' &&
          Object.entries(o.spec?.selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v),
      );
      expect(pdb, `a PodDisruptionBudget for ${app}`).toBeDefined();
      expect(Number(pdb?.spec?.minAvailable)).toBeGreaterThanOrEqual(1);
    }
  });

  it('every container has CPU and memory requests and limits, and none runs tsx', () => {
    for (const workload of workloads(manifests))
      for (const container of containersOf(workload)) {
        const where = `${workload.metadata.name}/${container.name}`;
        const { requests, limits } = container.resources ?? {};
        expect(requests?.cpu && requests.memory && limits?.cpu && limits.memory, where).toBeTruthy();
        expect([...(container.command ?? []), ...(container.args ?? [])].join(' '), where).not.toMatch(
          /tsx|\.ts\b/,
        );
      }
  });

  it('our images are the Dockerfile’s targets', () => {
    const targets = [
      ...readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM \S+ AS (\S+)$/gm),
    ].map((m) => m[1]);
    for (const workload of workloads(manifests))
      for (const container of containersOf(workload)) {
        const ours = /^agent-reach\/([a-z-]+):/.exec(container.image);
        if (ours) expect(targets, container.image).toContain(ours[1]);
      }
  });

  it('the console’s Jaeger link is a URL a browser opens: the Ingress host, routed to Jaeger’s UI under its base path', () => {
    const jaegerUrl = appConfig(manifests, 'console').console.jaeger_url;
    expect(jaegerUrl).toBeDefined();
    const url = new URL(jaegerUrl!);
    // Not a cluster-internal name (a Service name, *.svc, *.cluster.local) the browser cannot resolve.
    expect(url.hostname).toContain('.');
    expect(url.hostname).not.toMatch(/\.(svc|cluster\.local|local)$|\.svc\./);
    expect(find(manifests, 'Service', url.hostname.split('.')[0]!)).toBeUndefined();
    const rule = manifests
      .filter((o) => o.kind === 'Ingress')
      .flatMap((o) => o.spec?.rules ?? [])
      .find((r) => r.host === url.hostname);
    const path = rule?.http?.paths.find((p) => url.pathname.startsWith(p.path) && p.path !== '/');
    expect(path?.backend.service.name).toBe('jaeger');
    const jaeger = find(manifests, 'Deployment', 'jaeger')!;
    const basePath = containersOf(jaeger)[0]!.env?.find((e) => e.name === 'QUERY_BASE_PATH')?.value;
    expect(basePath).toBe(url.pathname.replace(/\/$/, ''));
    const uiPort = find(manifests, 'Service', 'jaeger')!.spec?.ports?.find((p) => p.name === 'ui')?.port;
    expect(path?.backend.service.port.number).toBe(uiPort);
    // And the earlier link was the in-cluster name.
    const old = containersOf(find(before, 'Deployment', 'console')!)[0]!.env!.find(
      (e) => e.name === 'REACH_JAEGER_URL',
    );
    expect(new URL(old!.value!).hostname).toBe('jaeger');
  });
});
