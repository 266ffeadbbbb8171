import { FREE_MAIL_DOMAINS } from '@loupe/companies';

/** Free-mail domains: anyone has an address there, so they never identify a company (one list, libs/companies', which refuses them as a company's domains). */
export const FREE_MAIL: ReadonlySet<string> = FREE_MAIL_DOMAINS;

/** The company a signal comes from: the email domain of its participant or speaker, free-mail domains left out. */
export function companyOf(participantId: string | null | undefined, whoSaidIt: string | null | undefined): string | null {
  for (const who of [participantId, whoSaidIt]) {
    const m = who ? /@([a-z0-9.-]+\.[a-z]{2,})\s*>?$/i.exec(who.trim()) : null;
    if (m && !FREE_MAIL.has(m[1]!.toLowerCase())) return m[1]!.toLowerCase();
  }
  return null;
}
