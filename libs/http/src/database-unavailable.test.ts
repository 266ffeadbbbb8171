import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './error-handler';

describe('isDatabaseUnavailable', () => {
  it('counts a stopped server reached through its Unix socket (the socket file is gone) as unavailable, not a missing file elsewhere', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ENOENT /data/postgres/.s.PGSQL.5432'), { code: 'ENOENT', syscall: 'connect' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("ENOENT: no such file or directory, open '/data/files/a.pdf'"), { code: 'ENOENT', syscall: 'open' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('connect ENOENT'), { code: 'ENOENT', syscall: 'connect' }) }))).toBe(true);
  });
});
