import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCa {
  /** The CA certificate (PEM): what a process is told to trust, e.g. through NODE_EXTRA_CA_CERTS. */
  caPath: string;
  ca: string;
  /** A server certificate for localhost and 127.0.0.1, signed by the CA, and its key. */
  cert: string;
  key: string;
}

/**
 * A throw-away certificate authority and one localhost server certificate, made with the machine's
 * `openssl` in `dir`. Valid one day, trusted by nobody unless told: a test trusts it in the processes
 * it starts, never machine-wide, and nothing turns TLS verification off.
 */
export function createTestCa(dir: string, name = 'Loupe e2e test CA'): TestCa {
  const file = (f: string) => path.join(dir, f);
  const openssl = (args: string[]) => {
    try {
      execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      throw new Error(`openssl ${args[0]} failed (is openssl installed?): ${(error as { stderr?: Buffer }).stderr?.toString() ?? String(error)}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', file('ca-key.pem'), '-out', file('ca.pem'), '-days', '1', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(['req', ...ec, '-keyout', file('server-key.pem'), '-out', file('server.csr'), '-subj', '/CN=localhost']);
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca-key.pem'), '-CAcreateserial',
    '-out', file('server.pem'), '-days', '1', '-extfile', file('server.ext')]);
  return {
    caPath: file('ca.pem'),
    ca: readFileSync(file('ca.pem'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    key: readFileSync(file('server-key.pem'), 'utf8'),
  };
}
