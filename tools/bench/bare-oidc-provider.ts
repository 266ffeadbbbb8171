/**
 * bench:token's baseline: oidc-provider with its own in-memory adapter on a plain Node HTTP server,
 * configured as ours where it matters to a refresh (code flow with S256 PKCE, one public client,
 * refresh tokens rotated on every use, the same lifetimes, prefixed opaque tokens, RS256 ID tokens),
 * with no database, no rate limits and no middleware of ours. Its interaction route signs in a fixed
 * account and consents on the spot. Prints its issuer URL and its client's JSON on stdout once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Provider } from 'oidc-provider';
import { OAUTH_TTL } from '@loupe/oauth';

// oidc-provider's in-memory adapter, given a store large enough that nothing is evicted during a run (its default keeps 1,000 entries).
const memoryAdapter = (await import('oidc-provider/lib/adapters/memory_adapter.js' as string)) as { default: new (model: string, store: unknown, tolerance: number) => object };
const lru = (await import('oidc-provider/lib/helpers/lru.js' as string)) as { default: new (options: { maxSize: number }) => unknown };
const store = new lru.default({ maxSize: 10_000_000 });

const client = {
  client_id: 'bench',
  redirect_uris: ['http://127.0.0.1:9/callback'],
  application_type: 'native' as const,
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code' as const],
  token_endpoint_auth_method: 'none' as const,
};

const server = http.createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const provider = new Provider(issuer, {
  adapter: (model: string) => new memoryAdapter.default(model, store, 0) as never,
  clients: [client],
  responseTypes: ['code'],
  clientAuthMethods: ['none'],
  scopes: ['mcp:read', 'mcp:write'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    userinfo: { enabled: true },
  },
  ttl: {
    AccessToken: OAUTH_TTL.accessToken,
    AuthorizationCode: OAUTH_TTL.authorizationCode,
    RefreshToken: OAUTH_TTL.refreshToken,
    Interaction: OAUTH_TTL.interaction,
    IdToken: OAUTH_TTL.accessToken,
    Session: 24 * 3600,
    Grant: OAUTH_TTL.refreshToken,
  },
  clockTolerance: 0,
  rotateRefreshToken: true,
  issueRefreshToken: async () => true,
  expiresWithSession: async () => false,
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId;
    return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
  },
  interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email: 'bench@bench.test', email_verified: true }) }),
});
for (const [Model, tag] of [[provider.AccessToken, 'at_'], [provider.RefreshToken, 'rt_']] as const) {
  const proto = Model.prototype as unknown as { generateTokenId(): string };
  const generate = proto.generateTokenId;
  proto.generateTokenId = function prefixed(this: unknown) {
    return `loupe_${tag}${generate.call(this)}`;
  };
}

const callback = provider.callback();
server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
  void (async () => {
    if (req.url?.startsWith('/interaction/')) {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: 'usr_bench', clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope ?? ''));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: 'usr_bench' }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return;
    }
    await callback(req, res);
  })().catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
});

console.log(issuer);
console.log(JSON.stringify({ client_id: client.client_id, redirect_uri: client.redirect_uris[0] }));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
