/**
 * Numbers and dates as people read them, on every account page: 9,997,854 rather than 9997854,
 * "24 Nov 2026, 23:37 UTC" rather than an ISO string. Times are shown in UTC (the server does not
 * know the reader's zone, and the pages run no script) and say so.
 */
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });

export const fmt = {
  /** 9997854 → "9,997,854". */
  num: (n: number | bigint | string | null | undefined): string => (n === null || n === undefined || n === '' ? '—' : integer.format(typeof n === 'string' ? Number(n) : n)),
  /** "24 Nov 2026". */
  date: (d: Date | null | undefined): string => (d ? day.format(d) : '—'),
  /** "24 Nov 2026, 23:37 UTC". */
  dateTime: (d: Date | null | undefined): string => (d ? `${day.format(d)}, ${time.format(d)} UTC` : '—'),
  /** "23:37 UTC". */
  time: (d: Date | null | undefined): string => (d ? `${time.format(d)} UTC` : '—'),
  /**
   * An amount as stored (NUMERIC as text): "120000.00" → "120,000", "99.5" → "99.50". No currency
   * symbol: the workspace's currency is not stored. Formatted from its digits, never through a float.
   */
  amount: (text: string | null | undefined): string => {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text ?? '');
    if (!m) return '—';
    const cents = (m[3] ?? '').padEnd(2, '0').slice(0, 2);
    return `${m[1]}${integer.format(BigInt(m[2]!))}${cents === '00' ? '' : `.${cents}`}`;
  },
  /** A calendar day as stored ("2027-03-01") → "1 Mar 2027". */
  day: (text: string | null | undefined): string => (text && /^\d{4}-\d\d-\d\d$/.test(text) ? day.format(new Date(`${text}T00:00:00Z`)) : '—'),
  /** "1 signal", "2,345 signals". */
  count: (n: number, one: string, many = `${one}s`): string => `${integer.format(n)} ${n === 1 ? one : many}`,
  /** A speaker's email domain, to show beside who said it; empty when their address already shows it. */
  domainBeside: (whoSaidIt: string | null | undefined, domain: string | null | undefined): string =>
    domain && !(whoSaidIt ?? '').toLowerCase().endsWith(`@${domain}`) ? domain : '',
};

export type Format = typeof fmt;
