import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Provider } from 'oidc-provider';

export interface TestPerson {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** Leave email out of the ID token (it is in userinfo only), as some providers do. */
  emailOnlyInUserinfo?: boolean;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The people who can sign in, by `sub`; tests add to it. */
  people: Map<string, TestPerson>;
  /** Registers our callback as the client's redirect URI and starts answering. */
  start(redirectUri: string): void;
  close(): Promise<void>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A second oidc-provider on a loopback port, standing in for Google or Okta: one confidential client,
 * a login page with a button per test person (and Cancel), consent given with the login.
 * Its cookies have their own names: browsers share cookies between ports of one host.
 */
export async function startTestIdp(people: Record<string, TestPerson> = {}): Promise<TestIdp> {
  const byId = new Map(Object.entries(people));
  let provider: Provider | undefined;
  let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;

  const server = http.createServer((req, res) => {
    if (!provider || !handle) {
      res.writeHead(503).end('not started');
      return;
    }
    const match = /^\/interaction\/([^/?]+)(\/login)?/.exec(req.url ?? '');
    if (!match) return handle(req, res);
    void interaction(provider, req, res, Boolean(match[2])).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'loupe-test';
  const clientSecret = 'test-idp-client-secret-0123456789';

  async function interaction(p: Provider, req: http.IncomingMessage, res: http.ServerResponse, submitted: boolean) {
    const details = await p.interactionDetails(req, res);
    if (!submitted) {
      const buttons = [...byId].map(([sub, person]) =>
        `<button type="submit" name="account" value="${escapeHtml(sub)}">Sign in as ${escapeHtml(person.name ?? person.email ?? sub)}</button>`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><title>Test IdP sign-in</title></head>
<body><main><h1>Test IdP</h1><form method="post" action="/interaction/${details.uid}/login">${buttons.join(' ')}
<button type="submit" name="account" value="cancel">Cancel</button></form></main></body></html>`);
      return;
    }
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const account = new URLSearchParams(body).get('account') ?? '';
    if (!byId.has(account)) {
      await p.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person cancelled' }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new p.Grant({ accountId: account, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? 'openid'));
    const grantId = await grant.save();
    await p.interactionFinished(req, res, { login: { accountId: account }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  return {
    issuer, clientId, clientSecret, people: byId,
    start(redirectUri: string) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      provider = new Provider(issuer, {
        clients: [{
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        }],
        jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-idp', use: 'sig', alg: 'RS256' } as never] },
        cookies: { keys: ['test-idp-cookie-key'], names: { session: 'idp_session', interaction: 'idp_interaction', resume: 'idp_resume' } },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        // Like Google: the scope's claims are in the ID token too (unless the person says otherwise).
        conformIdTokenClaims: false,
        pkce: { required: () => true },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
        features: { devInteractions: { enabled: false } },
        interactions: { url: async (_ctx, i) => `/interaction/${i.uid}` },
        async findAccount(_ctx, sub) {
          const person = byId.get(sub);
          if (!person) return undefined;
          return {
            accountId: sub,
            async claims(use) {
              const withEmail = use === 'userinfo' || !person.emailOnlyInUserinfo;
              return {
                sub,
                ...(person.name ? { name: person.name } : {}),
                ...(withEmail && person.email !== undefined ? { email: person.email } : {}),
                ...(withEmail && person.email_verified !== undefined ? { email_verified: person.email_verified } : {}),
              };
            },
          };
        },
      });
      handle = provider.callback();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
