import ipaddr from 'ipaddr.js';

/** Reason names for ipaddr.js range names, as they appear in errors and logs. */
const RANGE_REASONS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'cgnat',
  private: 'private',
  reserved: 'reserved',
  as112: 'as112',
  amt: 'amt',
  benchmarking: 'benchmarking',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard',
  rfc6145: 'ipv4-translated',
  rfc6052: 'nat64',
  '6to4': '6to4',
  teredo: 'teredo',
  as112v6: 'as112',
  deprecatedOrchid: 'orchid',
  orchid2: 'orchid',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'segment-routing',
};

/** IPv4 documentation ranges (RFC 5737) that ipaddr.js files under plain unicast. */
const IPV4_EXTRA: Array<[string, string]> = [
  ['192.0.2.0/24', 'documentation'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['192.0.0.0/24', 'reserved'],
  ['198.18.0.0/15', 'benchmarking'],
  ['240.0.0.0/4', 'reserved'],
];
const IPV6_EXTRA: Array<[string, string]> = [
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['100::/64', 'discard'],
];
/** IANA: global unicast is 2000::/3; any other address ipaddr.js files under unicast is reserved by the IETF. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function extraReason(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  const table = address.kind() === 'ipv4' ? IPV4_EXTRA : IPV6_EXTRA;
  for (const [cidr, reason] of table) {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    if (range.kind() === address.kind() && address.match(range, bits)) return reason;
  }
  return null;
}

/** `::a.b.c.d` (RFC 4291 "IPv4-compatible", deprecated): the first 96 bits zero, not `::` or `::1`. */
function isIpv4Compatible(address: ipaddr.IPv6, range: string): boolean {
  return range === 'unicast' && address.toByteArray().slice(0, 12).every((byte) => byte === 0);
}

function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052' || isIpv4Compatible(address, range)) {
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  // Teredo carries the client address inverted in the last 32 bits.
  if (range === 'teredo') return new ipaddr.IPv4(bytes.slice(12, 16).map((b) => b ^ 0xff));
  return null;
}

function classifyParsed(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (address.kind() === 'ipv6') {
    const inner = embeddedIpv4(address as ipaddr.IPv6, range);
    if (inner) {
      const innerClass = classifyParsed(inner);
      // Mapped and NAT64 forms reach the embedded address; 6to4, Teredo and IPv4-compatible forms are refused outright.
      if (range === 'ipv4Mapped') return innerClass;
      if (range === 'rfc6052' && innerClass === 'public') return 'public';
      const label = isIpv4Compatible(address as ipaddr.IPv6, range) ? 'ipv4-compatible' : (RANGE_REASONS[range] ?? range);
      return innerClass === 'public' ? label : `${label} (embeds ${innerClass})`;
    }
  }
  if (range === 'unicast' && address.kind() === 'ipv6' && !address.match(IPV6_GLOBAL_UNICAST)) return 'reserved';
  if (range === 'unicast' || range === 'reserved') return extraReason(address) ?? (range === 'unicast' ? 'public' : 'reserved');
  return RANGE_REASONS[range] ?? range;
}

/** True when `ip` is an IPv4 or IPv6 literal (no brackets, no zone). */
export function isIpLiteral(ip: string): boolean {
  return ipaddr.isValid(stripBrackets(ip));
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** 'public' for a globally routable address, else the reason it is not (loopback, private, ...). */
export function classifyAddress(ip: string): 'public' | string {
  const bare = stripBrackets(ip);
  if (bare.includes('%')) return 'scoped';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return 'invalid';
  }
  return classifyParsed(parsed);
}

/** The canonical text form of an address literal: IPv4 dotted quad, IPv6 compressed lower-case. */
export function canonicalAddress(ip: string): string {
  return ipaddr.parse(stripBrackets(ip)).toString();
}
