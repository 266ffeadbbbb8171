import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { refusalReason, type AddressPolicy } from './address-policy';

/** Raised inside the socket layer; the fetch turns it into a FetchRefusedError with the URL. */
export class AddressRefusal extends Error {
  override name = 'AddressRefusal';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${host} (${address}): it is ${reason}`);
  }
}

type LookupFunction = NonNullable<net.TcpSocketConnectOpts['lookup']>;
type LookupAll = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

/**
 * A DNS lookup that resolves every address of the host and fails unless all of them are
 * allowed. The connection then goes only to an address that was checked, so a name that
 * re-resolves elsewhere between check and connect (DNS rebinding) gains nothing.
 */
function guardedLookup(policy: AddressPolicy, base: LookupFunction): LookupFunction {
  const lookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const onAll: LookupAll = (err, addresses) => {
      if (err) return callback(err);
      for (const { address } of addresses) {
        const reason = refusalReason(address, policy);
        if (reason) return callback(new AddressRefusal(hostname, address, reason));
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
      return callback(null, first.address, first.family);
    };
    (base as unknown as (h: string, o: dns.LookupOptions, cb: LookupAll) => void)(hostname, { ...options, all: true }, onAll);
  }) as unknown as LookupFunction;
  return lookup;
}

function refusedSocket(error: Error, callback: ((err: Error | null, socket: Duplex) => void) | undefined): Duplex | null {
  if (callback) {
    callback(error, undefined as unknown as Duplex);
    return null;
  }
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(error));
  return socket;
}

function checkConnection<T extends { host?: string | null | undefined; lookup?: LookupFunction | undefined }>(
  options: T,
  policy: AddressPolicy,
): { refusal?: AddressRefusal; options: T } {
  const host = options.host?.replace(/^\[|\]$/g, '') ?? '';
  if (net.isIP(host)) {
    const reason = refusalReason(host, policy);
    if (reason) return { refusal: new AddressRefusal(host, host, reason), options };
  }
  return { options: { ...options, lookup: guardedLookup(policy, options.lookup ?? (dns.lookup as LookupFunction)) } };
}

/**
 * Agents that check every connection they open, for the first request and for each redirect
 * hop alike: a literal IP host is checked before connecting, a name after resolving it.
 */
export function createGuardedAgents(policy: AddressPolicy, tls: { ca?: string | string[] } = {}): { http: http.Agent; https: https.Agent } {
  // One override for both agents (https.Agent extends http.Agent): check, then connect as usual.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeScript mixins need an any[] constructor
  const guarded = <A extends new (...args: any[]) => http.Agent>(Base: A) =>
    class extends Base {
      override createConnection(
        options: http.ClientRequestArgs,
        callback?: (err: Error | null, socket: Duplex) => void,
      ): Duplex | null | undefined {
        const checked = checkConnection(options as http.ClientRequestArgs & { lookup?: LookupFunction }, policy);
        if (checked.refusal) return refusedSocket(checked.refusal, callback);
        return super.createConnection(checked.options, callback);
      }
    };
  return { http: new (guarded(http.Agent))({ keepAlive: false }), https: new (guarded(https.Agent))({ keepAlive: false, ...(tls.ca ? { ca: tls.ca } : {}) }) };
}
