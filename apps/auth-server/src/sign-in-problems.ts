import type { RequestCodeResult, VerifyCodeResult } from '@loupe/accounts';

/** What to tell a person whose code request was refused. */
export function codeRequestProblem(sent: Extract<RequestCodeResult, { ok: false }>): string {
  return sent.reason === 'invalid_email'
    ? 'Enter a valid email address, like ada@example.com.'
    : `Too many codes were requested. Try again in ${Math.ceil((sent.retryAfterSeconds ?? 60) / 60)} minutes.`;
}

/** What to tell a person whose code did not sign them in. */
export function codeProblem(result: Extract<VerifyCodeResult, { ok: false }>): string {
  return {
    invalid_code: 'That code is not right. Check the latest email from Loupe and try again.',
    expired: 'That code has expired. Send a new code.',
    too_many_attempts: 'Too many wrong codes. Send a new code.',
  }[result.reason] ?? 'That code cannot be used. Send a new code.';
}
