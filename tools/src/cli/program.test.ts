import { describe, expect, it } from 'vitest';
import { ADMIN_CLI } from './admin-commands';
import { LOUPE_CLI } from './loupe-commands';
import { parseCommandLine, USAGE_EXIT_CODE } from './program';
import type { OptionSpec } from './spec';

const admin = (...argv: string[]) => parseCommandLine(ADMIN_CLI, argv);
const loupe = (...argv: string[]) => parseCommandLine(LOUPE_CLI, argv);

describe('the admin command line', () => {
  it('prints the help of key create alone for `key create --help`, exit code 0', () => {
    const r = admin('key', 'create', '--help');
    expect(r).toMatchObject({ kind: 'exit', code: 0, err: '' });
    const out = r.kind === 'exit' ? r.out : '';
    expect(out).toMatch(/^Usage: npm run admin -- key create --workspace <id> --name <name> --permissions <list> \[--product <id>\]\n/);
    expect(out).toContain('--permissions <list>');
    expect(out).toContain('Only the key\'s SHA-256');
    // no other command, and none of the whole CLI's list
    for (const other of ['key revoke', 'workspace export', 'person erase', 'Commands:']) expect(out).not.toContain(other);
  });

  it('lists every command, one line each, for --help (exit code 0) and with no command (exit code 2)', () => {
    const asked = admin('--help');
    expect(asked).toMatchObject({ kind: 'exit', code: 0 });
    const out = asked.kind === 'exit' ? asked.out : '';
    for (const c of ADMIN_CLI.commands) expect(out).toMatch(new RegExp(`\\n  ${c.name} +${c.summary.slice(0, 20).replace(/[()]/g, '\\$&')}`));
    expect(out).not.toContain('--permissions');
    const none = admin();
    expect(none).toMatchObject({ kind: 'exit', code: USAGE_EXIT_CODE });
    expect(none.kind === 'exit' && none.err).toContain('key create');
  });

  it('names a wrong flag, points to the command\'s help and does not print the usage of every command, exit code 2', () => {
    const r = admin('key', 'revoke', '--workspace', 'ws_1', '--kye', 'key_1');
    expect(r).toEqual({
      kind: 'exit', code: USAGE_EXIT_CODE, out: '',
      err: 'error: unknown option \'--kye\'\nRun "npm run admin -- key revoke --help" to see its options.\n',
    });
  });

  it('suggests the flag meant', () => {
    const r = admin('key', 'create', '--workspace', 'ws_1', '--nmae', 'ci', '--permissions', 'api:read');
    expect(r.kind === 'exit' && r.err).toMatch(/^error: unknown option '--nmae'\n\(Did you mean --name\?\)\nRun "npm run admin -- key create --help"/);
  });

  it('names a missing required flag', () => {
    const r = admin('key', 'revoke', '--workspace', 'ws_1');
    expect(r).toMatchObject({ kind: 'exit', code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: required option '--id <id>' not specified\n/) });
  });

  it('names an unknown command', () => {
    expect(admin('kee', 'create')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: unknown command 'kee'\n(.|\n)*npm run admin -- --help/) });
    expect(admin('key', 'creat')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: unknown command 'creat'\n\(Did you mean create\?\)/) });
  });

  it('takes --id for key revoke (the key being revoked), and no longer --key', () => {
    expect(admin('key', 'revoke', '--workspace', 'ws_1', '--id', 'key_1')).toEqual({ kind: 'command', command: 'key revoke', options: { workspace: 'ws_1', id: 'key_1' }, args: [] });
    expect(admin('key', 'revoke', '--workspace', 'ws_1', '--key', 'key_1')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: unknown option '--key'/) });
  });

  it('takes on|off for every switch: --overage on, not yes', () => {
    expect(admin('plan', 'set', '--name', 'Team', '--included', '1000', '--overage', 'on')).toMatchObject({ kind: 'command', options: { overage: 'on' } });
    expect(admin('plan', 'set', '--name', 'Team', '--included', '1000', '--overage', 'yes'))
      .toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: option '--overage <on\|off>' argument 'yes' is invalid\. Allowed choices are on, off\./) });
    const options: readonly OptionSpec[] = ADMIN_CLI.commands.flatMap((c) => c.options);
    const switches = options.filter((o) => o.choices?.some((v) => /^(yes|no|on|off)$/.test(v)));
    expect(switches.map((o) => [o.name, o.choices])).toEqual([['overage', ['on', 'off']], ['value', ['on', 'off']]]);
  });

  it('keeps repeated values and switches by their flag names', () => {
    expect(admin('person', 'confirm', '--workspace', 'ws_1', '--id', 'era_1', '--use-name', 'Ana', '--use-name', 'Ana P', '--run'))
      .toEqual({ kind: 'command', command: 'person confirm', options: { workspace: 'ws_1', id: 'era_1', 'use-name': ['Ana', 'Ana P'], run: true }, args: [] });
    expect(admin('member', 'add', '--workspace', 'ws_1', '--email', 'a@b.test')).toMatchObject({ options: { role: 'member' } });
  });

  it('refuses arguments a command does not take', () => {
    expect(admin('key', 'list', '--workspace', 'ws_1', 'extra')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: too many arguments/) });
  });
});

describe('the loupe command line', () => {
  it('prints the help of upload alone for `upload --help`', () => {
    const r = loupe('upload', '--help');
    expect(r).toMatchObject({ kind: 'exit', code: 0 });
    const out = r.kind === 'exit' ? r.out : '';
    expect(out).toMatch(/^Usage: npm run loupe -- upload <file> \[--url <url>\] \[--key <api-key>\]\n/);
    expect(out).not.toContain('batches watch');
  });

  it('takes the file and the connection options, and names what is wrong', () => {
    expect(loupe('upload', 'records.ndjson', '--key', 'loupe_sk_x')).toEqual({ kind: 'command', command: 'upload', options: { key: 'loupe_sk_x' }, args: ['records.ndjson'] });
    expect(loupe('batches', 'watch', 'bat_1')).toEqual({ kind: 'command', command: 'batches watch', options: {}, args: ['bat_1'] });
    expect(loupe('upload')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: missing required argument 'file'\n/) });
    expect(loupe('upload', 'f.ndjson', '--kye', 'x')).toMatchObject({ code: USAGE_EXIT_CODE, err: expect.stringMatching(/^error: unknown option '--kye'\n\(Did you mean --key\?\)\nRun "npm run loupe -- upload --help"/) });
  });
});
