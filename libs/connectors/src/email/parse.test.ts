import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forwardedInText, htmlText, parseForward, parseHeaderDate, peopleOfHeader, withoutForwardPrefix } from './parse';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}.eml`, import.meta.url));

describe('parseForward', () => {
  it('a Gmail forward: the forwarder, the original sender and recipients, its date, its text, the two files but not the signature logo', async () => {
    const p = await parseForward(fixture('gmail-forward'));
    expect(p.kind).toBe('inline');
    expect(p.forwarder).toEqual({ email: 'dee@acme.test', name: 'Dee Park' });
    expect(p.subject).toBe('SSO before the rollout');
    expect(p.note).toBe('FYI: Hooli wants SSO before they roll out.');
    expect(p.messages).toHaveLength(1);
    const [m] = p.messages;
    expect(m!.from).toEqual({ email: 'erin@hooli.example', name: 'Erin Moss' });
    expect(m!.to).toEqual([{ email: 'dee@acme.test', name: 'Dee Park' }]);
    expect(m!.cc).toEqual([{ email: 'cto@hooli.example' }]);
    expect(m!.date?.toISOString()).toBe('2026-11-16T10:02:00.000Z');
    expect(m!.body).toMatch(/^Hi Dee,\n\nWe need SAML single sign-on before we roll out to 400 seats\./);
    expect(m!.body).toMatch(/Erin$/);
    expect(p.attachments.map((a) => [a.filename, a.contentType])).toEqual([['security-questionnaire.pdf', 'application/pdf'], ['seats.csv', 'text/csv']]);
    expect(p.attachments[0]!.content.subarray(0, 8).toString()).toBe('%PDF-1.4');
  });

  it('an Outlook forward of a thread: every "From: Sent: To: Subject:" block a message, oldest first, Outlook\'s [mailto:] read', async () => {
    const p = await parseForward(fixture('outlook-forward'));
    expect(p.forwarder).toEqual({ email: 'dee@acme.test', name: 'Park, Dee' });
    expect(p.note).toBe('Another one for billing.');
    expect(p.messages.map((m) => [m.from?.email, m.date?.toISOString(), m.subject])).toEqual([
      ['chen@initech.example', '2026-11-16T09:30:00.000Z', 'Invoices per team'],
      ['dee@acme.test', '2026-11-17T11:05:00.000Z', 'RE: Invoices per team'],
      ['chen@initech.example', '2026-11-17T16:45:00.000Z', 'RE: Invoices per team'],
    ]);
    expect(p.messages[2]!.to.map((x) => x.email)).toEqual(['support@acme.test', 'dee@acme.test']);
    expect(p.messages[2]!.cc).toEqual([{ email: 'ana@initech.example', name: 'Ana Ruiz' }]);
    expect(p.messages[0]!.body).toBe('Can we get one invoice per team instead of one for the whole company?');
    expect(p.messages[1]!.body).toBe('Hi Chen, not yet; it is on our list.');
  });

  it('an Apple Mail forward quoted with ">": "Begin forwarded message:" and the zone of its date', async () => {
    const p = await parseForward(fixture('apple-forward'));
    expect(p.note).toBe('');
    expect(p.messages).toHaveLength(1);
    expect(p.messages[0]!.from).toEqual({ email: 'sam@globex.example', name: 'Sam Lee' });
    expect(p.messages[0]!.date?.toISOString()).toBe('2026-11-18T16:42:05.000Z');
    expect(p.messages[0]!.body).toBe('The export button only gives PDF. We need CSV for our BI tool.\n\nSam');
  });

  it('a message attached whole (message/rfc822): its own headers, Message-ID and files', async () => {
    const p = await parseForward(fixture('attached-rfc822'));
    expect(p.kind).toBe('rfc822');
    expect(p.note).toBe('Forwarding as an attachment, see below.');
    expect(p.messages).toEqual([{
      from: { email: 'priya@umbrella.example', name: 'Priya Shah' }, to: [{ email: 'support@acme.test' }], cc: [],
      date: new Date('2026-11-19T21:30:00.000Z'), subject: 'Audit log retention',
      body: 'Our auditors need audit logs kept for seven years, not one.', messageId: '<CAOriginal-7781@mail.umbrella.example>',
    }]);
    expect(p.attachments.map((a) => a.filename)).toEqual(['audit-policy.pdf']);
  });

  it('a Gmail forward of a thread: the "On … wrote:" quotes (one wrapped on two lines) become the earlier messages', async () => {
    const p = await parseForward(fixture('gmail-thread'));
    expect(p.messages.map((m) => [m.from?.name, m.from?.email, m.date?.toISOString(), m.body])).toEqual([
      ['Erin Moss', 'erin@hooli.example', '2026-11-20T11:30:00.000Z', 'Our Slack alerts stopped this morning.'],
      ['Dee Park', 'dee@acme.test', '2026-11-20T14:00:00.000Z', 'Hi Erin, can you try reconnecting the Slack app?'],
      ['Erin Moss', 'erin@hooli.example', '2026-11-20T15:10:00.000Z', 'Works now, thanks. But we would love the alerts per channel.'],
    ]);
  });

  it('a mail that forwards nothing is the message itself, its sender the author', async () => {
    const p = await parseForward('From: Dee <dee@acme.test>\r\nTo: fwd+x@in.test\r\nSubject: Call notes: Hooli\r\nDate: Mon, 16 Nov 2026 10:00:00 +0000\r\nMessage-ID: <n1@acme.test>\r\n\r\nThey want SSO.\r\n');
    expect(p.kind).toBe('direct');
    expect(p.messages).toEqual([{ from: { email: 'dee@acme.test', name: 'Dee' }, to: [{ email: 'fwd+x@in.test' }], cc: [], date: new Date('2026-11-16T10:00:00Z'), subject: 'Call notes: Hooli', body: 'They want SSO.', messageId: '<n1@acme.test>' }]);
  });

  it('never throws on garbage: bytes, no headers, a header block with no address, endless quoting, pathological text', async () => {
    for (const raw of [Buffer.from([0, 255, 1, 2, 3, 13, 10, 13, 10]), '', 'not a mail at all', 'From: nobody\r\n\r\n---------- Forwarded message ---------\r\nFrom: ???\r\nDate: never\r\nSubject:\r\n\r\nx', `From: a@b.test\r\n\r\n${'>'.repeat(5000)} On x <e@f.test> wrote:\r\n`]) {
      const p = await parseForward(raw);
      expect(p.messages.length).toBeGreaterThan(0);
    }
    // Inputs that would make a careless pattern backtrack for hours: each is read in well under the test's time.
    const spaces = ' '.repeat(1_000_000);
    const hostile = [
      `From: a@x.test\r\nSubject: s\r\n\r\n${spaces}x\r\n${spaces}From: y\r\n> ${spaces}>${spaces}:\r\nOn ${'On '.repeat(300_000)}\r\n`,
      `From: a@x.test\r\nSubject: ${'fw: '.repeat(100_000)}x\r\nContent-Type: text/html\r\n\r\n${'<'.repeat(1_000_000)}${'&#'.repeat(100_000)}`,
      `From: "${' '.repeat(100_000)}x" <a@x.test>\r\nTo: ${'a'.repeat(500_000)}\r\n\r\n---------- Forwarded message ---------\r\nFrom: ${'<'.repeat(100_000)}\r\nDate: x\r\n\r\nbody`,
    ];
    for (const raw of hostile) expect((await parseForward(raw)).messages.length).toBeGreaterThan(0);
    const deep = Array.from({ length: 200 }, (_, i) => `${'>'.repeat(i)} On Mon, Nov 16, 2026 at 10:0${i % 10} AM P${i} <p${i}@x.test> wrote:\n${'>'.repeat(i + 1)} hi ${i}`).join('\n');
    expect(forwardedInText(`From: A <a@x.test>\nDate: Mon, 16 Nov 2026 at 10:02\nSubject: s\n\n${deep}`).messages.length).toBeGreaterThan(1);
  });
});

describe('the pieces', () => {
  it('reads dates as mail clients write them, in UTC when no zone is given', () => {
    expect(parseHeaderDate('Mon, 16 Nov 2026 at 10:02')?.toISOString()).toBe('2026-11-16T10:02:00.000Z');
    expect(parseHeaderDate('Tuesday, November 17, 2026 4:45 PM')?.toISOString()).toBe('2026-11-17T16:45:00.000Z');
    expect(parseHeaderDate('18 November 2026 at 17:42:05 CET')?.toISOString()).toBe('2026-11-18T16:42:05.000Z');
    expect(parseHeaderDate('Mon, 16 Nov 2026 10:02:00 -0500')?.toISOString()).toBe('2026-11-16T15:02:00.000Z');
    expect(parseHeaderDate('yesterday')).toBeUndefined();
    expect(parseHeaderDate('x'.repeat(500))).toBeUndefined();
  });

  it('reads the people of a header, quoted names with commas included', () => {
    expect(peopleOfHeader('"Moss, Erin" <Erin@Hooli.EXAMPLE>; Sam <sam@globex.example>, cto@hooli.example, not-an-address')).toEqual([
      { email: 'Erin@hooli.example', name: 'Moss, Erin' }, { email: 'sam@globex.example', name: 'Sam' }, { email: 'cto@hooli.example' },
    ]);
  });

  it('reads an HTML body as text: lines, tags gone, entities decoded', () => {
    expect(htmlText('<div>From: <b>Erin</b> &lt;erin@x.test&gt;<br>Date: now</div><p>Hi&nbsp;there &#x1F600; &#0; &bogus;</p>')).toBe('From: Erin <erin@x.test>\nDate: now\nHi there \u{1F600} &#0; &bogus;');
  });

  it('takes forwarding prefixes off a subject, keeping "Re:"', () => {
    expect(withoutForwardPrefix('Fwd: FW: Re: SSO')).toBe('Re: SSO');
    expect(withoutForwardPrefix('TR: Facture')).toBe('Facture');
  });
});
