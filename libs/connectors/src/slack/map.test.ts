import { itemOfRecord, slackSettingsSchema, validateItems } from '@loupe/records';
import { describe, expect, it } from 'vitest';
import { externalPerson, isBotMessage, messageRecord, plainText, threadRecord, tsToIso, type SlackContext } from './map';
import { messageSchema, userSchema } from './shapes';

const routing = { productId: 'prod_1', projectId: 'proj_1' };
const users = new Map([
  ['U1', userSchema.parse({ id: 'U1', team_id: 'T1', real_name: 'Mia Member', profile: { email: 'Mia@Acme.example', real_name: 'Mia Member' } })],
  ['U2', userSchema.parse({ id: 'U2', team_id: 'T9', real_name: 'Cleo Customer', is_stranger: true, profile: { email: 'cleo@globex.example' } })],
  ['U3', userSchema.parse({ id: 'U3', team_id: 'T1', real_name: 'Gus Guest', is_restricted: true, profile: { email: 'odd@@address' } })],
  ['U4', userSchema.parse({ id: 'U4', team_id: 'T1', name: 'deploybot', is_bot: true })],
  ['U5', userSchema.parse({ id: 'U5', team_id: 'T9', real_name: 'Long Address', profile: { email: `${'a'.repeat(250)}@globex.example` } })],
]);
const ctx: SlackContext = { team: 'T1', channel: 'C1', channelName: 'feedback', users };
const msg = (m: Record<string, unknown>) => messageSchema.parse({ type: 'message', ...m });

describe('Slack messages as records and people', () => {
  it('makes a lone message one `message` record the record schema accepts, its ids from team, channel and ts', () => {
    const record = messageRecord(ctx, routing, msg({
      ts: '1767225660.000100', user: 'U2', user_team: 'T9', text: 'Export to <https://x.example/csv|CSV> fails for <@U1> &amp; me',
      files: [{ id: 'F1', name: 'error.png', mimetype: 'image/png', size: 4821, url_private: 'https://files.slack.com/files-pri/T1-F1/error.png', permalink: 'https://acme.slack.com/files/U2/F1/error.png' }],
    }));
    const { accepted, errors } = validateItems([{ ...itemOfRecord(record), index: 0 }]);
    expect(errors).toEqual([]);
    expect(accepted).toHaveLength(1);
    expect(record).toMatchObject({
      _type: 'message', _event_at: '2026-01-01T00:01:00.000Z', _vendor_ids: { slack: 'T1/C1/1767225660.000100' }, _thread_id: 'slack:T1/C1/1767225660.000100',
      _nature: 'evidence', _participants: [{ id: 'cleo@globex.example', role: 'external', name: 'Cleo Customer', email: 'cleo@globex.example', type: 'contact' }],
      // url_private needs the token, which the downloader never gets: the file is described, not fetched.
      _attachments: [{ type: 'image', filename: 'error.png', mime_type: 'image/png', size: 4821 }],
      data: { channel: 'slack #feedback', text: 'Export to CSV (https://x.example/csv) fails for @Mia Member & me', files: [expect.objectContaining({ permalink: 'https://acme.slack.com/files/U2/F1/error.png' })] },
    });
    expect(JSON.stringify(record)).not.toContain('files-pri');
  });

  it('makes a thread one `conversation` with its replies in order, members internal, customers and guests external, bots `bot`', () => {
    const parent = msg({ ts: '1767225660.000100', user: 'U2', text: 'Exports fail\nsince Monday', thread_ts: '1767225660.000100', reply_count: 3, latest_reply: '1767225900.000000' });
    const replies = [
      msg({ ts: '1767225900.000000', user: 'U3', text: 'Same for us', thread_ts: parent.ts }),
      msg({ ts: '1767225700.000000', user: 'U1', text: 'Looking', thread_ts: parent.ts }),
      msg({ ts: '1767225800.000000', subtype: 'bot_message', bot_id: 'B1', bot_profile: { id: 'B1', name: 'Statuspage' }, text: 'Incident opened', thread_ts: parent.ts }),
      msg({ ts: '1767225660.000100', user: 'U2', text: 'Exports fail\nsince Monday' }),
    ];
    const record = threadRecord(ctx, routing, parent, replies);
    expect(validateItems([{ ...itemOfRecord(record), index: 0 }]).errors).toEqual([]);
    expect(record).toMatchObject({
      _type: 'conversation', _event_at: tsToIso('1767225900.000000'), _vendor_ids: { slack: 'T1/C1/1767225660.000100' }, _thread_id: 'slack:T1/C1/1767225660.000100',
      _participants: [
        { id: 'cleo@globex.example', role: 'external', type: 'contact' },
        { id: 'mia@acme.example', role: 'internal', email: 'mia@acme.example', type: 'workspace_member' },
        { id: 'slack:T1:bot:B1', role: 'unknown', name: 'Statuspage', type: 'bot' },
        // An address the record schema would refuse is left out, not the thread.
        { id: 'slack:T1:user:U3', role: 'external', name: 'Gus Guest', type: 'contact' },
      ],
      data: { subject: 'Exports fail' },
    });
    expect((record.data.messages as Array<{ body: string; bot?: boolean }>).map((m) => [m.body, m.bot ?? false])).toEqual([
      ['Exports fail\nsince Monday', false], ['Looking', false], ['Incident opened', true], ['Same for us', false],
    ]);
  });

  it('leaves out an address too long to be the participant\'s id, not the message', () => {
    const record = messageRecord({ ...ctx, channelName: 'x'.repeat(500) }, routing, msg({ ts: '1767225660.000100', user: 'U5', text: 'hi' }));
    expect(validateItems([{ ...itemOfRecord(record), index: 0 }]).errors).toEqual([]);
    expect(record._participants).toEqual([{ id: 'slack:T1:user:U5', role: 'external', name: 'Long Address', type: 'contact' }]);
  });

  it('tells bots by bot_id, by subtype and by a user Slack marks is_bot', () => {
    expect(isBotMessage(msg({ ts: '1.000001', bot_id: 'B1', text: 'x' }), users)).toBe(true);
    expect(isBotMessage(msg({ ts: '1.000001', subtype: 'bot_message', text: 'x' }), users)).toBe(true);
    expect(isBotMessage(msg({ ts: '1.000001', user: 'U4', text: 'x' }), users)).toBe(true);
    expect(isBotMessage(msg({ ts: '1.000001', user: 'U1', text: 'x' }), users)).toBe(false);
  });

  it('makes people of users from outside the workspace only, with their email when the schema takes it', () => {
    expect(externalPerson(ctx, users.get('U2')!)).toMatchObject({ external_id: 'slack:T1:user:U2', email: 'cleo@globex.example', name: 'Cleo Customer' });
    expect(externalPerson(ctx, users.get('U3')!)).toMatchObject({ external_id: 'slack:T1:user:U3', email: null });
    expect(externalPerson(ctx, users.get('U1')!)).toBeUndefined();
    expect(externalPerson(ctx, users.get('U4')!)).toBeUndefined();
  });

  it('reads Slack markup as plain words', () => {
    expect(plainText('<!here> see <#C2|support> and <mailto:a@b.example|a@b.example> &lt;3', users)).toBe('@here see #support and a@b.example (mailto:a@b.example) <3');
    expect(plainText('<@U9> hi', users)).toBe('@U9 hi');
  });

  it('refuses a malformed message by what is wrong, and settings without channels naming channel_ids', () => {
    const bad = messageSchema.safeParse({ ts: 'yesterday', text: 'x' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['ts'], message: 'is not a Slack timestamp (seconds.microseconds)' });
    const noChannels = slackSettingsSchema.safeParse({ channel_ids: [] });
    expect(noChannels.error!.issues[0]).toMatchObject({ path: ['channel_ids'], message: 'name at least one channel' });
    expect(slackSettingsSchema.safeParse({}).error!.issues[0]!.path).toEqual(['channel_ids']);
    expect(slackSettingsSchema.safeParse({ channel_ids: ['general'] }).error!.issues[0]!.path).toEqual(['channel_ids', 0]);
  });
});
