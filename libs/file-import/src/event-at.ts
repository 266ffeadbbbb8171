/**
 * Turns a cell into `_event_at` (UTC, `YYYY-MM-DDThh:mm:ssZ`). `format` is `iso` (the default: any ISO-8601
 * date or date-time; a time without an offset is read as UTC), `unix` (seconds), `unix_ms` (milliseconds), or a
 * pattern of `YYYY`, `MM`, `DD`, `HH`, `mm`, `ss` and literal characters (`DD/MM/YYYY HH:mm`), read as UTC.
 * Returns undefined when the cell does not fit.
 */
export function eventAtOf(cell: string, format = 'iso'): string | undefined {
  const text = cell.trim();
  if (!text) return undefined;
  let date: Date | undefined;
  if (format === 'unix' || format === 'unix_ms') {
    if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
    date = new Date(Number(text) * (format === 'unix' ? 1000 : 1));
  } else if (format === 'iso') {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(text);
    if (!m) return undefined;
    const offset = m[8] ? (m[8].toUpperCase() === 'Z' ? 'Z' : m[8].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')) : 'Z';
    date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${(m[7] ?? '').slice(0, 4)}${offset}`);
    if (!sameCalendarDay(date, m, offset)) return undefined;
  } else {
    date = byPattern(text, format);
  }
  if (!date || Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return undefined;
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Refuses 2026-02-30 (which Date would roll over to March) when the time is in UTC. */
function sameCalendarDay(date: Date, m: RegExpExecArray, offset: string): boolean {
  if (offset !== 'Z') return !Number.isNaN(date.getTime());
  return date.getUTCFullYear() === +m[1]! && date.getUTCMonth() + 1 === +m[2]! && date.getUTCDate() === +m[3]!;
}

const TOKENS = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss'] as const;

function byPattern(text: string, pattern: string): Date | undefined {
  const order: string[] = [];
  let source = '';
  for (let i = 0; i < pattern.length;) {
    const token = TOKENS.find((t) => pattern.startsWith(t, i));
    if (token) {
      order.push(token);
      source += token === 'YYYY' ? '(\\d{4})' : '(\\d{1,2})';
      i += token.length;
    } else {
      source += pattern[i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i++;
    }
  }
  const m = new RegExp(`^${source}$`).exec(text);
  if (!m) return undefined;
  const part = (t: string) => {
    const at = order.indexOf(t);
    return at < 0 ? 0 : Number(m[at + 1]);
  };
  const [y, mo, d] = [part('YYYY'), part('MM') || 1, part('DD') || 1];
  const date = new Date(Date.UTC(y, mo - 1, d, part('HH'), part('mm'), part('ss')));
  date.setUTCFullYear(y);
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && part('HH') < 24 && part('mm') < 60 && part('ss') < 60 ? date : undefined;
}

/** A format as a person reads it in a refusal: the named ones with what they look like, a pattern as written. */
export function describeEventAtFormat(format = 'iso'): string {
  if (format === 'iso') return 'iso (like 2026-11-20 or 2026-11-20 10:05)';
  if (format === 'unix') return 'unix (seconds since 1970)';
  if (format === 'unix_ms') return 'unix_ms (milliseconds since 1970)';
  return format;
}

/** True when `format` is one `eventAtOf` understands. */
export function isEventAtFormat(format: string): boolean {
  return format === 'iso' || format === 'unix' || format === 'unix_ms' || TOKENS.some((t) => format.includes(t));
}
