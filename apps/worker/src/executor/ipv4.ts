import { isIPv4 } from 'node:net';

/** An IPv4 network: its first address as a 32-bit number and its prefix length. */
export interface Ipv4Cidr {
  base: number;
  prefix: number;
  text: string;
}

const toNumber = (address: string): number =>
  address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);

const mask = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);

/** `a.b.c.d/n` (or a bare address, as /32) with no host bits set; undefined when it is not one. */
export function parseIpv4Cidr(text: string): Ipv4Cidr | undefined {
  const [address = '', prefixText = '32', extra] = text.split('/');
  if (extra !== undefined || !isIPv4(address) || !/^\d{1,2}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > 32) return undefined;
  const base = toNumber(address);
  if ((base & mask(prefix)) >>> 0 !== base) return undefined;
  return { base, prefix, text: `${address}/${prefix}` };
}

/** Whether `inner` lies within `outer` (equal counts). */
export function cidrContains(outer: Ipv4Cidr, inner: Ipv4Cidr): boolean {
  return outer.prefix <= inner.prefix && (inner.base & mask(outer.prefix)) >>> 0 === outer.base;
}

export function ipv4Cidr(text: string): Ipv4Cidr {
  const cidr = parseIpv4Cidr(text);
  if (!cidr) throw new Error(`not an IPv4 CIDR: ${text}`);
  return cidr;
}
