import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { EtcdUnaryClient, openEtcdStore } from '@agent-reach/registry';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBody } from '../e2e-registry/http-registration.js';
import { type RunningEtcd, startEtcd } from '../harness/etcd.js';
import { RegistryProcess } from '../harness/registry-process.js';
import { makeTestCerts, type TestCerts } from '../harness/test-certs.js';

// etcd as production runs it: client TLS with client certificates, and auth enabled.
let certs: TestCerts;
let etcd: RunningEtcd;
const PASSWORD = 'registry-secret-1';

const pem = (path: string) => readFileSync(path);
const tlsOf = (c: TestCerts) => ({ ca: pem(c.ca), cert: pem(c.clientCert), key: pem(c.clientKey) });

beforeAll(async () => {
  certs = await makeTestCerts();
  etcd = await startEtcd({
    tls: { ca: certs.ca, cert: certs.serverCert, key: certs.serverKey },
    // Auth tokens expire after 1 s of disuse (default 300 s), so the test sees a client renew one.
    extraArgs: ['--auth-token-ttl=1'],
  });
  const admin = new Etcd3({
    hosts: etcd.endpoint,
    credentials: {
      rootCertificate: pem(certs.ca),
      certChain: pem(certs.clientCert),
      privateKey: pem(certs.clientKey),
    },
  });
  try {
    // etcd's auth needs a root user; the registry gets a user of its own with read-write on every key.
    await admin.user('root').create('root-secret-1');
    await admin.user('root').addRole('root');
    const role = await admin.role('reach').create();
    await role.grant({ permission: 'Readwrite', range: admin.range({ prefix: '' }) });
    await admin.user('registry').create(PASSWORD);
    await admin.user('registry').addRole('reach');
    await admin.auth.authEnable({});
  } finally {
    admin.close();
  }
});
afterAll(async () => {
  await etcd?.stop();
  if (certs) await rm(certs.dir, { recursive: true, force: true });
});

describe('etcd with client TLS and auth', () => {
  it('works through both clients: leases and transactions (HTTP/2), reads, watches and elections (etcd3)', async () => {
    const store = await openEtcdStore({
      endpoints: [etcd.endpoint],
      prefix: '/tls-a',
      security: { tls: tlsOf(certs), auth: { username: 'registry', password: PASSWORD } },
      onError: () => undefined,
    });
    try {
      const seen: string[] = [];
      const watch = await store.watch('/w/', (events) => {
        for (const event of events) seen.push(`${event.type} ${event.key}`);
      });
      const lease = await store.grantLease(5000);
      expect(await store.commit({ puts: [{ key: '/w/one', value: '1', lease }] })).toEqual({
        ok: true,
        value: undefined,
      });
      expect(await store.get('/w/one')).toBe('1');
      expect((await store.keepAlive(lease)).ok).toBe(true);
      const leadership = await store.campaign('tls-election', 'a');
      expect(leadership.isLeader).toBe(true);
      await leadership.resign();
      await store.revokeLease(lease);
      await expect.poll(() => seen).toEqual(['put /w/one', 'delete /w/one']);
      await watch.close();
    } finally {
      await store.close();
    }
  });

  it('is refused without a client certificate, with a stranger CA’s certificate, or with a wrong password', async () => {
    await expect(
      openEtcdStore({
        endpoints: [etcd.endpoint],
        security: { auth: { username: 'registry', password: PASSWORD } },
        callTimeoutMs: 2000,
      }),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    const stranger = { ca: pem(certs.ca), cert: pem(certs.strangerCert), key: pem(certs.strangerKey) };
    const unaryStranger = new EtcdUnaryClient([etcd.endpoint], 2000, {
      tls: stranger,
      auth: { username: 'registry', password: PASSWORD },
    });
    await expect(unaryStranger.grantLease(5)).rejects.toThrow();
    unaryStranger.close();
    // The hand-written client authenticates too: a wrong password never gets a lease, the right one does.
    const wrong = new EtcdUnaryClient([etcd.endpoint], 2000, {
      tls: tlsOf(certs),
      auth: { username: 'registry', password: 'not-the-password' },
    });
    await expect(wrong.grantLease(5)).rejects.toThrow(/authentication failed/);
    wrong.close();
    const none = new EtcdUnaryClient([etcd.endpoint], 2000, { tls: tlsOf(certs) });
    // With client-cert-auth etcd takes the certificate's CN (`client`, no such user) as the user: no writes.
    const put = { request_put: { key: Buffer.from('/x'), value: Buffer.from('1') } };
    await expect(none.txn([put])).rejects.toThrow(/permission denied|user name not found|token/);
    none.close();
    const right = new EtcdUnaryClient([etcd.endpoint], 2000, {
      tls: tlsOf(certs),
      auth: { username: 'registry', password: PASSWORD },
    });
    expect(await right.grantLease(5)).toMatch(/^\d+$/);
    await right.txn([put]);
    right.close();
  });

  it('the HTTP/2 client renews an auth token that expired, within the call', async () => {
    const client = new EtcdUnaryClient([etcd.endpoint], 2000, {
      tls: tlsOf(certs),
      auth: { username: 'registry', password: PASSWORD },
    });
    try {
      expect(await client.grantLease(5)).toMatch(/^\d+$/);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const put = { request_put: { key: Buffer.from('/renewed'), value: Buffer.from('1') } };
      await client.txn([put]);
      expect(await client.grantLease(5)).toMatch(/^\d+$/);
    } finally {
      client.close();
    }
  });

  it('serves a registry process configured from its config file (TLS files, user, password from the environment)', async () => {
    const registry = await RegistryProcess.start({
      config: {
        storage: {
          type: 'etcd',
          etcd: {
            endpoints: [etcd.endpoint],
            prefix: '/tls-proc',
            tls: { ca_file: certs.ca, cert_file: certs.clientCert, key_file: certs.clientKey },
            username: 'registry',
            password_env: 'REACH_ETCD_PASSWORD',
          },
        },
      },
      env: { REACH_ETCD_PASSWORD: PASSWORD },
    });
    try {
      const response = await fetch(`${registry.url}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registerBody('tls-agent', 9301)),
      });
      expect(response.status).toBe(201);
      const { instance_id: id } = (await response.json()) as { instance_id: string };
      const listed = (await (await fetch(`${registry.url}/v1/agents/${id}`)).json()) as { state: string };
      expect(listed.state).toBe('healthy');
    } finally {
      await registry.dispose();
    }
  });
});
