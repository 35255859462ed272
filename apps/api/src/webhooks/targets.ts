import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (SSRF care, decision 0044): `http` or `https`, no user info, and, unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS is set, never an address inside the service's own networks. The check
 * runs twice: on the URL when the webhook is saved (a literal internal address is refused at once) and on
 * every address the name resolves to at connect time (the request's `lookup`), so a name that later
 * resolves inside (DNS rebinding) is refused too. Redirects are not followed.
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
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
  INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address is loopback, private, link-local, shared, multicast or otherwise internal. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family === 6) {
    const mapped = mappedIpv4(address);
    if (mapped) return INTERNAL.check(mapped, 'ipv4');
    return INTERNAL.check(address, 'ipv6');
  }
  return true;
}

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:1.2.3.4` or `::ffff:102:304`), else null. */
function mappedIpv4(address: string): string | null {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export class TargetRefused extends Error {
  /** the code a refusal keeps when a client library copies the error's fields into its own */
  readonly code = 'ETARGETREFUSED';
}

/** Why a target URL is refused, or null when it may be saved. */
export function targetProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url: an absolute http or https URL is needed';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url: only http and https are delivered to';
  if (url.username || url.password)
    return 'url: credentials in the URL are not accepted (sign with the secret instead)';
  if (raw.length > 2000) return 'url: at most 2000 characters';
  return allowPrivate ? null : internalHostProblem(url.hostname.replace(/^\[|\]$/g, ''));
}

function internalHostProblem(host: string): string | null {
  if (isIP(host) && isInternalAddress(host))
    return 'url: internal addresses (loopback, private, link-local) are refused';
  if (/^(localhost|.*\.localhost|.*\.local|.*\.internal)$/i.test(host)) return 'url: internal host names are refused';
  return null;
}

/**
 * The check `lookup` cannot make: a URL whose host is an IP literal is connected to without a lookup,
 * so an internal literal is refused here (unless allowed). Null when the host may be connected to.
 */
export function literalAddressRefusal(url: URL, allowPrivate: boolean): TargetRefused | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || !isIP(host) || !isInternalAddress(host)) return null;
  return new TargetRefused(`refused: ${host} is an internal address`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses internal addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate) {
        const internal = list.find((entry) => isInternalAddress(entry.address));
        if (internal)
          return callback(
            new TargetRefused(`refused: ${hostname} resolves to an internal address (${internal.address})`),
            [],
          );
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
