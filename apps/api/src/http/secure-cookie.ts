import type { Request } from 'express';

/**
 * Whether cookies get `Secure` (issue 12, finding 7): always when `PUBLIC_URL` is https, whatever the
 * hop in front says, and otherwise when the request itself came over https (directly, or as a proxy
 * trusted by `TRUST_PROXY` reports with X-Forwarded-Proto).
 */
export const secureCookie = (req: Request, publicUrl: string): boolean => req.secure || /^https:/i.test(publicUrl);
