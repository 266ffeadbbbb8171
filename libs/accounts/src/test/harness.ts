import type { TestDatabase } from '@loupe/db/testing';
import { createAccounts, type Mailer } from '../index';

export const CODE_SECRET = 'test-code-secret-0123456789abcdef';
/** 2026-11-22T10:00:00Z, on an hour boundary, so rate windows start with the test. */
export const START = Date.UTC(2026, 10, 22, 10, 0, 0);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export type SentMail = Parameters<Mailer['send']>[0];

/** Accounts over a test database, with a clock the test moves and a mailer that keeps what it is given. */
export function harness(t: TestDatabase, start = START) {
  let now = start;
  const clock = { now: () => now };
  const sent: SentMail[] = [];
  const mailer: Mailer = {
    async send(message) {
      sent.push(message);
    },
  };
  const accounts = createAccounts({ pool: t.pool, db: t.db, clock, mailer, codeSecret: CODE_SECRET });
  return {
    accounts,
    sent,
    clock,
    advance(ms: number) {
      now += ms;
    },
    setTime(ms: number) {
      now = ms;
    },
    /** The six digits of the last mail sent to this address. */
    lastCode(email: string): string {
      const mail = sent.filter((m) => m.to === email).at(-1);
      if (!mail) throw new Error(`no mail was sent to ${email}`);
      const match = /(\d{3}) (\d{3})/.exec(mail.text);
      if (!match) throw new Error(`no code in "${mail.subject}"`);
      return `${match[1]}${match[2]}`;
    },
  };
}
