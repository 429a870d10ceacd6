import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Files of a throwaway PKI made with openssl: a CA, a server certificate for 127.0.0.1, client certificates. */
export interface TestCerts {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA, which the server must refuse. */
  strangerCert: string;
  strangerKey: string;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

async function issue(dir: string, name: string, ca: string, caKey: string, ext: string): Promise<void> {
  await writeFile(join(dir, `${name}.ext`), ext);
  await openssl(
    dir,
    'genpkey',
    '-algorithm',
    'EC',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-out',
    `${name}.key`,
  );
  await openssl(dir, 'req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-out', `${name}.csr`);
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    ca,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  );
}

async function authority(dir: string, name: string): Promise<void> {
  await openssl(
    dir,
    'genpkey',
    '-algorithm',
    'EC',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-out',
    `${name}.key`,
  );
  await openssl(
    dir,
    'req',
    '-x509',
    '-new',
    '-key',
    `${name}.key`,
    '-subj',
    `/CN=${name}`,
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    `${name}.crt`,
  );
}

/** Makes a CA, a server certificate (127.0.0.1, localhost) and client certificates in a temporary directory. */
export async function makeTestCerts(): Promise<TestCerts> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-certs-'));
  await authority(dir, 'ca');
  await authority(dir, 'stranger-ca');
  const usage = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n';
  await issue(
    dir,
    'server',
    'ca.crt',
    'ca.key',
    `${usage}extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n`,
  );
  await issue(dir, 'client', 'ca.crt', 'ca.key', `${usage}extendedKeyUsage=clientAuth\n`);
  await issue(dir, 'stranger', 'stranger-ca.crt', 'stranger-ca.key', `${usage}extendedKeyUsage=clientAuth\n`);
  const at = (file: string) => join(dir, file);
  return {
    dir,
    ca: at('ca.crt'),
    serverCert: at('server.crt'),
    serverKey: at('server.key'),
    clientCert: at('client.crt'),
    clientKey: at('client.key'),
    strangerCert: at('stranger.crt'),
    strangerKey: at('stranger.key'),
  };
}
