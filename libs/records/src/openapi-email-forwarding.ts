import { z } from 'zod';

// Email forwarding (libs/connectors/src/email): each project's inbound address and who may forward to it.

type Helpers = {
  common: Record<string, unknown>;
};

export const emailForwardingSchema = z.strictObject({
  enabled: z.boolean().meta({ description: 'Whether this server receives mail (MAIL_REPLY_DOMAIN with an SMTP receiver); without it there are no addresses.' }),
  addresses: z.array(z.strictObject({
    product_id: z.string().max(128).meta({ description: 'The project\'s product.' }),
    product_name: z.string().max(200).meta({ description: 'The product\'s name.' }),
    project_id: z.string().max(128).meta({ description: 'The project whose sources forwarded mail becomes.' }),
    project_name: z.string().max(200).meta({ description: 'The project\'s name.' }),
    address: z.string().max(320).meta({ description: 'Where to forward: `fwd+<26 random characters>@<inbound domain>`. Made on first read, kept until replaced on the console.' }),
  })).max(1000).meta({ description: 'One per project of the workspace (none when `enabled` is false).' }),
  sender_domains: z.array(z.string().max(253)).max(200).meta({ description: 'The domains whose senders may forward (and whose people are internal participants); subdomains too.' }),
  sender_domains_from_members: z.boolean().meta({ description: 'True when no list is set: the domains of the workspace members\' emails apply.' }),
});
export type EmailForwardingView = z.infer<typeof emailForwardingSchema>;

const EXAMPLE: EmailForwardingView = {
  enabled: true,
  addresses: [{ product_id: 'prod_01h…', product_name: 'Acme app', project_id: 'proj_01h…', project_name: 'Support', address: 'fwd+k3q7x2m9tz4hbn6wdr5yc8vjpa@replies.example.com' }],
  sender_domains: ['acme.com'],
  sender_domains_from_members: true,
};

/** The email forwarding path of the OpenAPI document. */
export function emailForwardingPaths({ common }: Helpers): Record<string, unknown> {
  const { $schema: _s, ...schema } = z.toJSONSchema(emailForwardingSchema, { target: 'draft-2020-12', io: 'output', reused: 'inline' }) as Record<string, unknown>;
  return {
    '/api/v1/email-forwarding': {
      get: {
        operationId: 'getEmailForwarding',
        tags: ['Email forwarding'],
        summary: 'Each project\'s forwarding address (needs api:write)',
        description:
          'A mail forwarded to a project\'s address becomes an `email` or `email_thread` record of that project (its senders as participants, its ' +
          'files stored), if its sender\'s domain is one of `sender_domains`; any other sender is refused with a 550 that says why. Reading makes ' +
          'the addresses of projects that have none yet. It needs `api:write`: an address lets records in. The console\'s Email forwarding page ' +
          'shows the same, and replaces an address or sets the sender domains.',
        responses: { '200': { description: 'The addresses and the sender rule', content: { 'application/json': { schema, example: EXAMPLE } } }, ...common },
      },
    },
  };
}
