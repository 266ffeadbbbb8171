import { simpleParser, type AddressObject, type Attachment, type ParsedMail } from 'mailparser';
import { z } from 'zod';

/** Someone named in a mail header. */
export interface MailPerson {
  email: string;
  name?: string;
}

/** One message of what was forwarded, as its headers and text say. */
export interface ForwardedMessage {
  from: MailPerson | undefined;
  to: MailPerson[];
  cc: MailPerson[];
  date: Date | undefined;
  subject: string;
  body: string;
  /** Known only for a message attached whole (message/rfc822). */
  messageId?: string;
}

/** A file the mail carries, its bytes in hand. */
export interface MailFile {
  filename: string | undefined;
  contentType: string;
  content: Buffer;
}

/** A mail sent to a forwarding address: who forwarded it, and the message or thread they forwarded. */
export interface ParsedForward {
  /**
   * How the forwarded message(s) were found: attached whole (`rfc822`), as header blocks or "wrote:" quotes in the
   * text (`inline`), or not at all (`direct`: the mail itself is the evidence, its sender the only author).
   */
  kind: 'rfc822' | 'inline' | 'direct';
  /** The received mail's Message-ID, angle brackets included. */
  messageId: string | undefined;
  /** The received mail's From: the person who forwarded. */
  forwarder: MailPerson | undefined;
  /** An automatic reply (RFC 3834 `Auto-Submitted` other than `no`, or `X-Autoreply`): an out-of-office, not evidence. */
  automatic: boolean;
  /** The received mail's subject with "Fwd:" / "Fw:" taken off. */
  subject: string;
  date: Date | undefined;
  /** What the forwarder wrote above the forwarded message (empty for a `direct` mail: its text is the message). */
  note: string;
  /** Oldest first. At least one. */
  messages: ForwardedMessage[];
  /** The files: those of the attached original when there is one, else the mail's own; never inline images its HTML shows (signatures, logos). */
  attachments: MailFile[];
}

const emailSchema = z.email();
const isEmail = (value: string) => value.length <= 320 && emailSchema.safeParse(value).success;

function person(email: string | undefined, name: string | undefined): MailPerson | undefined {
  const address = email?.trim().replace(/^mailto:/i, '');
  if (!address || !isEmail(address)) return undefined;
  if (address.length > 320) return undefined;
  const at = address.lastIndexOf('@');
  const normalised = `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`;
  const shown = name?.slice(0, 1000).replace(/^["'\s]+|["'\s]+$/g, '').replace(/\s+/g, ' ').slice(0, 256);
  return shown && shown.toLowerCase() !== normalised.toLowerCase() ? { email: normalised, name: shown } : { email: normalised };
}

function peopleOf(field: AddressObject | AddressObject[] | undefined): MailPerson[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  const flat = list.flatMap((a) => a.value.flatMap((v) => (v.group ? v.group : [v])));
  return flat.map((v) => person(v.address, v.name)).filter((p): p is MailPerson => !!p);
}

const ADDRESS = /"([^"]*)"\s*<([^>\s]+)>|([^<>,;"]*?)\s*<([^>\s]+)>|([^\s<>,;"()[\]]+@[^\s<>,;"()[\]]+)/g;

/** The people of a header value as written in a forwarded block: `Name <a@b>`, `"Last, First" <a@b>`, `a@b`, Outlook's `Name [mailto:a@b]`. */
export function peopleOfHeader(value: string): MailPerson[] {
  const text = value.slice(0, 2000).replace(/\s*\[mailto:([^\]\s]+)\]/gi, ' <$1>');
  const found: MailPerson[] = [];
  for (const m of text.matchAll(ADDRESS)) {
    const p = m[2] ? person(m[2], m[1]) : m[4] ? person(m[4], m[3]) : person(m[5], undefined);
    if (p) found.push(p);
  }
  return found;
}

const TIMEZONES: Record<string, string> = {
  UTC: '+0000', GMT: '+0000', UT: '+0000', Z: '+0000', CET: '+0100', CEST: '+0200', BST: '+0100', IST: '+0530', EET: '+0200', EEST: '+0300',
  EST: '-0500', EDT: '-0400', CST: '-0600', CDT: '-0500', MST: '-0700', MDT: '-0600', PST: '-0800', PDT: '-0700', JST: '+0900', AEST: '+1000', AEDT: '+1100',
};

/**
 * A date as mail clients write it in a forwarded header: RFC 5322 (`Mon, 16 Nov 2026 10:02:00 +0100`), Gmail's
 * `Mon, 16 Nov 2026 at 10:02`, Apple Mail's `16 November 2026 at 10:02:11 CET`, Outlook's `Monday, November 16,
 * 2026 10:02 AM`. Without a zone, UTC. Undefined when it is none of them.
 */
export function parseHeaderDate(value: string): Date | undefined {
  let text = value.trim().replace(/\s+at\s+/i, ' ').replace(/^[A-Za-z]+,\s*/, '').replace(/\s+/g, ' ');
  if (!text || text.length > 100) return undefined;
  const zone = /\s([A-Z]{1,5})$/.exec(text);
  if (zone && TIMEZONES[zone[1]!]) text = `${text.slice(0, zone.index)} ${TIMEZONES[zone[1]!]}`;
  const hasZone = /(?:[+-]\d{2}:?\d{2}|GMT[+-]\d{1,2}(?::?\d{2})?)$/.test(text);
  const parsed = Date.parse(hasZone ? text : `${text} UTC`);
  if (Number.isNaN(parsed)) return undefined;
  const year = new Date(parsed).getUTCFullYear();
  return year >= 1970 && year <= 9999 ? new Date(parsed) : undefined;
}

/** "Fwd: Fw: Re: SSO" → "Re: SSO": only the forwarding prefixes go. */
export function withoutForwardPrefix(subject: string): string {
  return subject.slice(0, 998).replace(/^(?:\s*(?:fwd?|fw|tr|wg|rv|enc|doorst)\s*(?:\[\d+\])?\s*:\s*)+/i, '').trim();
}

const SEPARATOR = /^\s*>?\s*(?:-{2,}\s*(?:Forwarded message|Original Message|Message transféré|Weitergeleitete Nachricht|Mensaje reenviado|Messaggio inoltrato)\s*-{0,}|Begin forwarded message:|Anfang der weitergeleiteten Nachricht:|_{20,}|-{20,})\s*$/i;
const HEADER = /^\s*[*>]?\s*\*?(From|Sent|Date|To|Cc|Subject|Reply-To|De|Von|Envoyé|Gesendet|Objet|Betreff|À|An|Datum)\s*\*?\s*:\s*(.*)$/i;
const HEADER_NAMES: Record<string, string> = {
  from: 'from', de: 'from', von: 'from', sent: 'date', date: 'date', 'envoyé': 'date', gesendet: 'date', datum: 'date',
  to: 'to', 'à': 'to', an: 'to', cc: 'cc', subject: 'subject', objet: 'subject', betreff: 'subject', 'reply-to': 'reply-to',
};
const WROTE = /^On\s+(.+?)\s*<?([^\s<>]+@[^\s<>]+?)>?\s+wrote:\s*$/i;
const WROTE_DATE = /^(.*\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?[A-Z]{2,5}|\s?[+-]\d{4})?)\s*,?\s+(.+)$/;

/** Longer lines are never headers, separators or attributions (and the patterns stay linear on hostile text). */
const MAX_PATTERN_LINE = 1000;
const short = (line: string) => line.length <= MAX_PATTERN_LINE;

interface Block {
  start: number;
  end: number;
  headers: Record<string, string>;
}

/** A header block starting at line `i` (From plus at least a date or subject within it), or undefined. */
function headerBlockAt(lines: string[], i: number): Block | undefined {
  if (!short(lines[i]!)) return undefined;
  const first = HEADER.exec(lines[i]!);
  if (!first || HEADER_NAMES[first[1]!.toLowerCase()] !== 'from') return undefined;
  const headers: Record<string, string> = {};
  let j = i;
  let last = '';
  for (; j < lines.length && j < i + 20; j++) {
    const line = lines[j]!;
    if (!short(line)) break;
    const m = HEADER.exec(line);
    if (m) {
      const name = HEADER_NAMES[m[1]!.toLowerCase()]!;
      if (name === 'from' && j > i) break;
      last = name;
      headers[name] ??= m[2]!.trim();
      continue;
    }
    // A wrapped To or Cc continues on the next line.
    if (line.trim() && (last === 'to' || last === 'cc') && /@/.test(line) && !/\s{2,}\S/.test(line.trim())) {
      headers[last] = `${headers[last]} ${line.trim()}`;
      continue;
    }
    break;
  }
  if (headers.date === undefined && headers.subject === undefined) return undefined;
  return { start: i, end: j, headers };
}

function trimBlankLines(lines: string[]): string {
  let a = 0;
  let b = lines.length;
  while (a < b && !lines[a]!.trim()) a++;
  while (b > a && !lines[b - 1]!.trim()) b--;
  return lines.slice(a, b).join('\n');
}

const isBlank = (line: string) => !line.replace(/^[>\s]+/, '');

/** One level of `>` quoting off. */
const unquote = (lines: string[]) => lines.map((l) => l.replace(/^>\s?/, ''));

/**
 * A message's text split at a Gmail/Apple-style attribution ("On <date>, <name> <address> wrote:" followed by
 * `>`-quoted lines): the message's own text, then the quoted ones, oldest last. An attribution may wrap on two lines.
 */
function splitQuoted(body: string[], subject: string, depth: number): { own: string; earlier: ForwardedMessage[] } {
  if (depth > 50) return { own: trimBlankLines(body), earlier: [] };
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!.trim();
    if (!/^On\s/i.test(line) || !short(line)) continue;
    let attribution = line;
    let next = i + 1;
    if (!/wrote:\s*$/i.test(line) && i + 1 < body.length && short(body[i + 1]!) && /wrote:\s*$/i.test(body[i + 1]!.trim())) {
      attribution = `${line} ${body[i + 1]!.trim()}`;
      next = i + 2;
    }
    const m = WROTE.exec(attribution);
    if (!m) continue;
    let end = next;
    while (end < body.length && (body[end]!.startsWith('>') || (!body[end]!.trim() && end + 1 < body.length && body[end + 1]!.startsWith('>')))) end++;
    if (end === next) continue;
    // "<date>[,] <name>": the date ends with its time.
    const when = WROTE_DATE.exec(m[1]!.trim());
    const date = when ? parseHeaderDate(when[1]!) : undefined;
    const name = when?.[2]!.replace(/,$/, '');
    const quoted = splitQuoted(unquote(body.slice(next, end)), subject, depth + 1);
    const message: ForwardedMessage = {
      from: person(m[2], name), to: [], cc: [], date, subject: /^re:/i.test(subject) ? subject.replace(/^re:\s*/i, '') : subject, body: quoted.own,
    };
    return { own: trimBlankLines([...body.slice(0, i), ...body.slice(end)]), earlier: [message, ...quoted.earlier] };
  }
  return { own: trimBlankLines(body), earlier: [] };
}

/**
 * The forwarded messages of a text body: every header block ("From: … Date:/Sent: … Subject: …", after Gmail's
 * "---------- Forwarded message ---------", Apple Mail's "Begin forwarded message:", Outlook's rule or
 * "-----Original Message-----", or on its own), each followed by its text; quotes inside a message's text become
 * earlier messages. Newest first, as the text has them; `note` is what stands above the first.
 */
export function forwardedInText(text: string): { note: string; messages: ForwardedMessage[] } {
  let lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 100_000) lines = lines.slice(0, 100_000);
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const block = headerBlockAt(lines, i);
    if (block) {
      blocks.push(block);
      i = block.end - 1;
    }
  }
  if (!blocks.length) return { note: trimBlankLines(lines), messages: [] };
  // A separator line just above a block belongs to it.
  const startOf = (b: Block) => {
    let s = b.start;
    while (s > 0 && isBlank(lines[s - 1]!)) s--;
    return s > 0 && short(lines[s - 1]!) && SEPARATOR.test(lines[s - 1]!) ? s - 1 : b.start;
  };
  // Apple Mail and some clients quote the forwarded part with `>`: each block's text loses that level.
  const messages: ForwardedMessage[] = [];
  blocks.forEach((b, k) => {
    const until = k + 1 < blocks.length ? startOf(blocks[k + 1]!) : lines.length;
    let body = lines.slice(b.end, until);
    const filled = body.filter((l) => l.trim());
    if (filled.length && filled.every((l) => l.startsWith('>'))) body = unquote(body);
    const subject = withoutForwardPrefix(b.headers.subject ?? '');
    const split = splitQuoted(body, subject, 0);
    messages.push({
      from: peopleOfHeader(b.headers.from ?? '')[0],
      to: peopleOfHeader(b.headers.to ?? ''),
      cc: peopleOfHeader(b.headers.cc ?? ''),
      date: b.headers.date ? parseHeaderDate(b.headers.date) : undefined,
      subject,
      body: split.own,
    }, ...split.earlier);
  });
  const above = lines.slice(0, startOf(blocks[0]!));
  // The forwarder's signature ("-- " and what follows) is not part of what they wrote.
  const signature = above.findIndex((l) => /^-- ?$/.test(l));
  const note = trimBlankLines(signature >= 0 ? above.slice(0, signature) : above);
  return { note, messages };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * The text of an HTML body, for a mail that has no text part (mailparser makes none for an HTML part inside
 * multipart/mixed): blocks and line breaks become lines, tags go, entities are decoded. Bounded: 2 MB read.
 */
export function htmlText(html: string): string {
  return html.slice(0, 2_000_000)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|tr|h[1-6]|blockquote|table)\s*>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .split('\n').map((l) => l.trimEnd()).join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const textOf = (mail: ParsedMail) => (mail.text ?? (typeof mail.html === 'string' ? htmlText(mail.html) : '')).slice(0, 5_000_000);

/** The files worth keeping: not the inline images the HTML shows (signatures, logos), nor an attached message. */
function filesOf(attachments: Attachment[]): MailFile[] {
  return attachments
    .filter((a) => !a.related && a.contentType !== 'message/rfc822' && !(a.contentDisposition === 'inline' && a.contentType.startsWith('image/') && a.cid && !a.filename))
    .map((a) => ({ filename: a.filename?.slice(0, 512), contentType: (a.contentType || 'application/octet-stream').slice(0, 256), content: a.content }));
}

const PARSE_OPTIONS = { skipHtmlToText: false, skipImageLinks: true, skipTextLinks: true, maxHtmlLengthToParse: 2_000_000 } as const;

/**
 * Reads a mail sent to a forwarding address (mailparser): the forwarder from its From header, the forwarded
 * message(s) from an attached message/rfc822 part when there is one, else from the forwarded headers in its
 * text; the original's files. Never throws on content it cannot read: what it cannot find is left out.
 */
export async function parseForward(raw: Buffer | string): Promise<ParsedForward> {
  const mail = await simpleParser(raw, PARSE_OPTIONS);
  const forwarder = peopleOf(mail.from)[0];
  const subject = withoutForwardPrefix(mail.subject ?? '');
  const autoSubmitted = String(mail.headers.get('auto-submitted') ?? 'no').trim().toLowerCase();
  const automatic = (autoSubmitted !== '' && !autoSubmitted.startsWith('no')) || mail.headers.has('x-autoreply');
  const base = { messageId: mail.messageId?.slice(0, 998), forwarder, subject, automatic, date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : undefined };
  const attached = mail.attachments.filter((a) => a.contentType === 'message/rfc822');
  if (attached.length) {
    const messages: ForwardedMessage[] = [];
    const files: MailFile[] = [];
    for (const part of attached.slice(0, 20)) {
      const original = await simpleParser(part.content, PARSE_OPTIONS);
      const inText = forwardedInText(textOf(original));
      const originalSubject = withoutForwardPrefix(original.subject ?? '');
      messages.push(...[...inText.messages].reverse(), {
        from: peopleOf(original.from)[0], to: peopleOf(original.to), cc: peopleOf(original.cc),
        date: original.date && !Number.isNaN(original.date.getTime()) ? original.date : undefined,
        subject: originalSubject, body: inText.messages.length ? inText.note : trimBlankLines(textOf(original).split('\n')),
        ...(original.messageId ? { messageId: original.messageId.slice(0, 998) } : {}),
      });
      files.push(...filesOf(original.attachments));
    }
    files.push(...filesOf(mail.attachments));
    return { kind: 'rfc822', ...base, note: trimBlankLines(textOf(mail).split('\n')), messages, attachments: files };
  }
  const inText = forwardedInText(textOf(mail));
  if (inText.messages.length) {
    return { kind: 'inline', ...base, note: inText.note, messages: [...inText.messages].reverse(), attachments: filesOf(mail.attachments) };
  }
  return {
    kind: 'direct', ...base, note: '',
    messages: [{ from: forwarder, to: peopleOf(mail.to), cc: peopleOf(mail.cc), date: base.date, subject, body: inText.note, ...(base.messageId ? { messageId: base.messageId } : {}) }],
    attachments: filesOf(mail.attachments),
  };
}
