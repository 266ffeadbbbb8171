/**
 * Free-mail domains: anyone can have an address there, so they never identify a company. A signal's
 * speaker at one resolves to no company by domain, and a company may not list one.
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'yahoo.com', 'icloud.com', 'me.com', 'aol.com', 'proton.me',
  'protonmail.com', 'gmx.com', 'gmx.de', 'web.de',
]);

/** Whether `domain` (any case) is a free-mail domain. */
export function isFreeMailDomain(domain: string): boolean {
  return FREE_MAIL_DOMAINS.has(domain.trim().toLowerCase());
}
