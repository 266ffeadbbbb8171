/**
 * CSV as spreadsheets read it (RFC 4180): a field with a comma, a double quote or a line break is
 * written in double quotes, its quotes doubled; lines end with CRLF. Text a person or an assistant wrote
 * (a title, a segment) is neutralised against CSV injection: a cell that starts with =, +, -, @, a tab or
 * a carriage return would be run as a formula by Excel or Sheets, so it gets a leading apostrophe.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

/** Text of a person or an assistant: never a formula. */
export const text = (value: string | null | undefined): string => {
  const s = value ?? '';
  return FORMULA_START.test(s) ? `'${s}` : s;
};

/** One field, quoted when it must be. */
export const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** One line of fields (already neutralised where they are text), with its CRLF. */
export const line = (values: readonly string[]): string => `${values.map(field).join(',')}\r\n`;
