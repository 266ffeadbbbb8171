import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Allow 127.0.0.0/8 and ::1 (tests, and FETCH_ALLOW_LOOPBACK for local development). Nothing else. */
  allowLoopback: boolean;
}

const REASONS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private network address (10/8, 172.16/12, 192.168/16)',
  uniqueLocal: 'a unique-local IPv6 address (fc00::/7)',
  linkLocal: 'a link-local address (169.254/16, fe80::/10; cloud metadata lives here)',
  unspecified: 'the unspecified address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64/10)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved or documentation address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6052: 'a NAT64 address that embeds an IPv4 address (64:ff9b::/96)',
  rfc6145: 'an IPv4-translated IPv6 address',
  '6to4': 'a 6to4 address that embeds an IPv4 address (2002::/16)',
  teredo: 'a Teredo address that embeds an IPv4 address (2001::/32)',
  benchmarking: 'a benchmarking address',
  discard: 'a discard-only address (100::/64)',
  amt: 'an AMT address',
  as112v6: 'an AS112 address',
  orchid2: 'an ORCHIDv2 address',
  deprecated: 'a deprecated address range',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID address',
};

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Why `address` may not be connected to, or undefined when it may. Only globally routable
 * unicast passes (for IPv6, 2000::/3 only); IPv4-mapped IPv6 is judged as the IPv4 address it carries.
 */
export function refusalReason(address: string, policy: AddressPolicy): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  // ipaddr.js calls everything outside its named IPv6 ranges "unicast", including the deprecated
  // IPv4-compatible ::/96 (::7f00:1 is 127.0.0.1 to some stacks); only global unicast 2000::/3 passes.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) {
    return 'an IPv6 address outside global unicast (2000::/3), such as an IPv4-compatible ::/96 address';
  }
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return REASONS[range] ?? `a special-purpose address (${range})`;
}
