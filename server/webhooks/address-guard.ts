// Endpoints must not reach into the server's own network (ADR 0050): an address in a private,
// loopback, link-local, unique-local, shared or unspecified range (IPv4 and IPv6, IPv4-mapped
// included) is refused when the endpoint is added and again when a delivery connects. The
// delivery connects to the very address checked (pinnedLookup), so a name that resolves to a
// public address when checked and to a private one a moment later (DNS rebinding) gains nothing.
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv6');

/** Whether an IP address is one endpoints may not be on (IPv4-mapped IPv6 judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

const refusal = (host: string, address: string) =>
  new RefusedAddressError(
    `${host} resolves to ${address}, a private, loopback or link-local address: webhooks go to public addresses only`,
  );

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves the URL's host and refuses it when any of its addresses is private. */
export async function checkEndpointAddress(url: URL): Promise<void> {
  const host = bareHost(url);
  if (net.isIP(host)) {
    if (isPrivateAddress(host)) throw refusal(host, host);
    return;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new RefusedAddressError(`${host} does not resolve to an address`);
  }
  const bad = addresses.find((entry) => isPrivateAddress(entry.address));
  if (bad) throw refusal(host, bad.address);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request: resolves the name, refuses it when any address is private, and
 * hands the socket the checked address, so the connection goes where the check looked.
 */
export function pinnedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const bad = addresses.find((entry) => isPrivateAddress(entry.address));
    if (bad) return callback(refusal(hostname, bad.address) as NodeJS.ErrnoException, '');
    const wanted = options.family === 4 || options.family === 6 ? options.family : null;
    const usable = addresses.filter((entry) => wanted === null || entry.family === wanted);
    if (usable.length === 0) return callback(new RefusedAddressError(`${hostname} has no usable address`), '');
    if (options.all) return callback(null, usable);
    callback(null, usable[0].address, usable[0].family);
  });
}
