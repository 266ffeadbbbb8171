import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The ports to choose from: below the kernel's ephemeral range (where outgoing connections and
 * `listen(0)` take their ports), so nothing else takes the chosen port between now and its use.
 */
function candidateRange(): [number, number] {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: the common default
  }
  const high = Math.min(ephemeralLow - 1, 65535);
  return [Math.max(1024, high - 12_000), high];
}

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now, for a throw-away cluster or a test server. */
export async function freePort(): Promise<number> {
  const [low, high] = candidateRange();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free TCP port on 127.0.0.1 between ${low} and ${high}`);
}
