// Endpoints must not reach into the server's own network (ADR 0050): only what ipaddr.js calls a
// `unicast` address (a public one) is allowed, when the endpoint is added and again when a
// delivery connects. An IPv6 address that carries an IPv4 address is judged by that IPv4 address.
// The delivery connects to the very address checked (pinnedLookup), and the address the socket
// reached is checked once more, so a name that resolves to a public address when checked and to a
// private one a moment later (DNS rebinding) gains nothing.
//
// A refusal says the same whether the name resolves to a private address or to none: telling
// which would let any user map the server's internal DNS.
import dns from 'node:dns';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The one answer to an endpoint that is not public, on adding it and in its delivery log. */
const NOT_PUBLIC = 'url must be a public address, or a name that resolves to public addresses only';

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  constructor() {
    super(NOT_PUBLIC);
  }
}

/** 64:ff9b:1::/48 (RFC 8215): a NAT64 prefix of any RFC 6052 length from /48 to /96 within it. */
const LOCAL_USE_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
/**
 * The bytes that hold the IPv4 address in an RFC 6052 address of prefix length /48, /56, /64 and
 * /96 (bits 64-71 are skipped): the operator's length is not known here, so each is judged. The
 * zeros of a well-formed address read as 0.x.x.x at the other places, so in practice the prefix
 * (not globally reachable, says IANA) is refused.
 */
const LOCAL_USE_NAT64_LAYOUTS = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];
const LAST_32_BITS = [12, 13, 14, 15];

/** The IPv4 addresses an IPv6 address carries (none for a plain IPv6 address). */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const at = (indexes: number[]) => new ipaddr.IPv4(indexes.map((index) => bytes[index]));
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, translated (RFC 6145)
      return [at(LAST_32_BITS)];
    case 'rfc6052': // NAT64: 64:ff9b::a.b.c.d (RFC 6052) and 64:ff9b:1::/48 (RFC 8215)
      return address.match(LOCAL_USE_NAT64) ? LOCAL_USE_NAT64_LAYOUTS.map(at) : [at(LAST_32_BITS)];
    case '6to4': // 2002:aabb:ccdd::/48
      return [at([2, 3, 4, 5])];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client XOR ffffffff>
      return [at([4, 5, 6, 7]), new ipaddr.IPv4(bytes.slice(12).map((byte) => byte ^ 0xff))];
  }
  // IPv4-compatible ::a.b.c.d (RFC 4291, deprecated); :: and ::1 fall here too, and are refused
  // as 0.0.0.0 and 0.0.0.1 as they are as IPv6.
  if (bytes.slice(0, 12).every((byte) => byte === 0)) return [at(LAST_32_BITS)];
  return [];
}

/** Whether an IP address is one endpoints may be on: public unicast, whatever IPv4 it carries too. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const carried = carriedIPv4(parsed as ipaddr.IPv6);
  if (carried.length > 0) return carried.every((ipv4) => ipv4.range() === 'unicast');
  return parsed.range() === 'unicast';
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves the URL's host and refuses it unless every one of its addresses is public. */
export async function checkEndpointAddress(url: URL): Promise<void> {
  const host = bareHost(url);
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) throw new RefusedAddressError();
    return;
  }
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => []);
  if (addresses.length === 0 || !addresses.every((entry) => isPublicAddress(entry.address)))
    throw new RefusedAddressError();
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request: resolves the name, refuses it unless every address is public, and
 * hands the socket the checked addresses only, so the connection goes where the check looked.
 */
export function pinnedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error || !addresses.every((entry) => isPublicAddress(entry.address)))
      return callback(new RefusedAddressError(), '');
    const wanted = options.family === 4 || options.family === 6 ? options.family : null;
    const usable = addresses.filter((entry) => wanted === null || entry.family === wanted);
    if (usable.length === 0) return callback(new RefusedAddressError(), '');
    if (options.all) return callback(null, usable);
    callback(null, usable[0].address, usable[0].family);
  });
}

/**
 * Ends a socket that reached an address which is not public, before anything is written to it:
 * first among the socket's `connect` listeners, ahead of the request's bytes and TLS's hello.
 */
export function guardConnectedAddress(socket: Socket): void {
  socket.prependOnceListener('connect', () => {
    if (!isPublicAddress(socket.remoteAddress ?? '')) socket.destroy(new RefusedAddressError());
  });
}
