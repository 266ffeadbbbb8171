import fc from 'fast-check';

/** One generated HTTP request: what `fetch` sends, and the row of the counts table it belongs to. */
export interface HostileRequest {
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** The sweep's calls whose argument is of a type the schema does not allow: the tool must answer isError. */
  wrongType?: boolean;
}

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; enum?: unknown[]; anyOf?: JsonSchema[]; required?: string[] };

/** Strings that broke servers before: NUL, lone surrogates, overlong, RTL and combining marks, template and SQL look-alikes. */
export const oddString = fc.oneof(
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83dy', '\ufeff', '\u202e', 'e\u0301\u0301\u0301', '🀄'.repeat(50), '%00', '%', '%ZZ',
    '{{constructor.constructor("return 1")()}}', "' OR 1=1 --", '<script>alert(1)</script>', '../../etc/passwd', '\r\nx-injected: 1',
    '__proto__', 'constructor', 'prototype', 'null', 'undefined', 'NaN', '-0', '1e309', '9'.repeat(400),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'é'.repeat(n)),
);

/** A value of any JSON type, biased to the ones that trip validators. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 1, -1e308, 1e308, [], {}, [null], { __proto__: null }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(null).map(() => JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}') as unknown),
  fc.integer({ min: 1, max: 1_000 }).map((d) => JSON.parse(`${'['.repeat(d)}1${']'.repeat(d)}`) as unknown),
);

/** A plausible value for a JSON Schema (ids from `ids` for *_id fields), or an odd one. */
export function valueFor(schema: JsonSchema, name: string, ids: string[], depth = 0): fc.Arbitrary<unknown> {
  const plausible = (): fc.Arbitrary<unknown> => {
    if (schema.enum?.length) return fc.constantFrom(...schema.enum);
    if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, name, ids, depth + 1)));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string':
        if (/_id$|^id$/.test(name)) return fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 12 }));
        if (/_at$/.test(name)) return fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.string({ maxLength: 30 }));
        return fc.string({ maxLength: 60 });
      case 'integer': return fc.integer({ min: -5, max: 600 });
      case 'number': return fc.double();
      case 'boolean': return fc.boolean();
      case 'array': return depth > 3 ? fc.constant([]) : fc.array(valueFor(schema.items ?? {}, name, ids, depth + 1), { maxLength: 3 });
      case 'object': return depth > 3 ? fc.constant({}) : argumentsFor(schema, ids, depth + 1);
      default: return fc.jsonValue({ maxDepth: 2 });
    }
  };
  return fc.oneof({ arbitrary: plausible(), weight: 4 }, { arbitrary: oddValue, weight: 1 });
}

/** Arguments for a tool's input schema: any subset of its properties, each plausible or odd, plus stray keys. */
export function argumentsFor(schema: JsonSchema, ids: string[], depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema.properties ?? {});
  const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, valueFor(s, k, ids, depth)])), { requiredKeys: [] });
  const stray = fc.dictionary(fc.oneof(oddString, fc.constantFrom('__proto__', 'constructor', 'prototype')), oddValue, { minKeys: 1, maxKeys: 3 });
  return fc.tuple(record, fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: stray, weight: 1 }))
    .map(([args, extra]) => (extra ? Object.assign(Object.create(null) as Record<string, unknown>, args, extra) : args));
}

export interface McpSetup {
  url: string;
  /** Valid credentials as header sets (API keys and bearer tokens). */
  credentials: Array<Record<string, string>>;
  tools: Array<{ name: string; inputSchema: JsonSchema }>;
  prompts: string[];
  ids: string[];
}

const PROTOCOL = '2025-06-18';

/** JSON-RPC messages for /api/mcp: valid, mutated, malformed, huge, nested, batched. */
function mcpMessages(s: McpSetup): fc.Arbitrary<unknown> {
  const id = fc.oneof({ arbitrary: fc.integer(), weight: 5 }, { arbitrary: fc.string({ maxLength: 10 }), weight: 2 }, { arbitrary: oddValue, weight: 1 });
  const call = fc.constantFrom(...s.tools).chain((t) =>
    fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.constant('tools/call'), params: fc.record({ name: fc.constant(t.name), arguments: argumentsFor(t.inputSchema, s.ids) }) }));
  const known = fc.record({
    jsonrpc: fc.constant('2.0'), id,
    method: fc.constantFrom('initialize', 'ping', 'tools/list', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'completion/complete', 'logging/setLevel', 'notifications/initialized', 'notifications/cancelled'),
    params: fc.oneof(
      fc.constant({ protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }),
      fc.record({ name: fc.oneof(fc.constantFrom(...s.prompts), oddString), arguments: fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(fc.constantFrom(...s.ids), oddString), { maxKeys: 3 }) }),
      fc.record({ cursor: oddValue }),
      oddValue,
    ),
  }, { requiredKeys: ['jsonrpc', 'method'] });
  const mutated = fc.tuple(fc.oneof(call, known), fc.constantFrom('jsonrpc', 'id', 'method', 'params'), oddValue, fc.boolean()).map(([m, key, value, drop]) => {
    const out = { ...(m as Record<string, unknown>) };
    if (drop) delete out[key];
    else out[key] = value;
    return out;
  });
  const unknownTool = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constant('tools/call'), params: fc.record({ name: oddString, arguments: oddValue }) });
  return fc.oneof(
    { arbitrary: call, weight: 10 },
    { arbitrary: known, weight: 3 },
    { arbitrary: mutated, weight: 4 },
    { arbitrary: unknownTool, weight: 1 },
    { arbitrary: fc.array(fc.oneof(call, known, mutated), { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 1 },
  );
}

/** Body texts: the message as JSON, or text no JSON parser accepts, or bytes that are not UTF-8, or very large or deep. */
function mcpBodies(s: McpSetup): fc.Arbitrary<string | Uint8Array> {
  const text = mcpMessages(s).map((m) => JSON.stringify(m) ?? 'null');
  return fc.oneof(
    { arbitrary: text, weight: 20 },
    { arbitrary: fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
    { arbitrary: fc.uint8Array({ maxLength: 200 }), weight: 1 },
    { arbitrary: text.map((t) => t.replace(/"[^"]*"/, '"\ud800\u0000"')), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 200_000 }).map((d) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}}`), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 200_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`), weight: 1 },
    { arbitrary: fc.integer({ min: 100_000, max: 6_000_000 }).map((n) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add_source', arguments: { project_id: s.ids[0], source_type: 'document', content: 'x'.repeat(n) } } })), weight: 1 },
  );
}

/** Requests to /api/mcp: mostly well-formed transport with hostile bodies, sometimes wrong methods, headers or credentials. */
export function mcpRequests(s: McpSetup): fc.Arbitrary<HostileRequest> {
  const credential = fc.oneof(
    { arbitrary: fc.constantFrom(...s.credentials), weight: 20 },
    { arbitrary: fc.constantFrom<Record<string, string>>({}, { authorization: 'Bearer ' }, { authorization: 'Basic eDp5' }, { 'x-api-key': '' }, { 'x-api-key': 'loupe_sk_nope' }, { authorization: `Bearer loupe_at_${'a'.repeat(300)}` }), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((v) => ({ 'x-api-key': v.replace(/[^\x20-\x7e]/g, '') })), weight: 1 },
  );
  const headers = fc.record({
    accept: fc.oneof({ arbitrary: fc.constant('application/json, text/event-stream'), weight: 20 }, { arbitrary: fc.constantFrom('*/*', 'application/json', 'text/event-stream', '', 'text/html'), weight: 1 }),
    'content-type': fc.oneof({ arbitrary: fc.constant('application/json'), weight: 20 }, { arbitrary: fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', ''), weight: 2 }),
    'mcp-protocol-version': fc.oneof({ arbitrary: fc.constantFrom(PROTOCOL, '2025-11-25', '2024-11-05'), weight: 10 }, { arbitrary: fc.constantFrom('1999-01-01', 'latest', '', '2025-06-18, 2025-03-26'), weight: 1 }),
  }, { requiredKeys: ['accept', 'content-type'] });
  const method = fc.oneof({ arbitrary: fc.constant('POST'), weight: 40 }, { arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'), weight: 1 });
  const odd = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 40 },
    { arbitrary: fc.constantFrom<Record<string, string>>({ host: 'evil.example' }, { origin: 'https://evil.example' }, { origin: 'null' }, { 'mcp-session-id': 'x' }, { 'last-event-id': '1' }), weight: 1 },
  );
  return fc.tuple(method, credential, headers, odd, mcpBodies(s)).map(([m, c, h, o, body]) => ({
    target: m === 'POST' ? 'POST /api/mcp' : `${m} /api/mcp`,
    method: m,
    path: '/api/mcp',
    headers: { ...h, ...c, ...(o ?? {}) } as Record<string, string>,
    ...(m === 'GET' || m === 'HEAD' ? {} : { body }),
  }));
}

/** Values of every JSON type and the strings that trip servers: each tool argument gets each of them once. */
export const WRONG_TYPES: unknown[] = [
  null, true, 0, -1, 1.5, 2 ** 53 + 1, 1e308, '', 'x', '\u0000', '\ud800', 'é'.repeat(100_000), [], [null], ['x'], {}, { a: 1 },
  JSON.parse('{"__proto__":{"polluted":1}}'), JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`),
];

/** A deterministic sweep: for every tool and every argument, a call with that argument of each wrong type, the others plausible. */
export function argumentSweep(s: McpSetup): HostileRequest[] {
  const plausible = (name: string, schema: JsonSchema): unknown => {
    if (schema.enum?.length) return schema.enum[0];
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'string') return /_id$|^id$/.test(name) ? s.ids[0] : 'x';
    if (type === 'integer' || type === 'number') return 1;
    if (type === 'boolean') return true;
    if (type === 'array') return [plausible(name, schema.items ?? {})];
    if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, plausible(k, v)]));
    return 'x';
  };
  const typesOf = (schema: JsonSchema): string[] =>
    [...(Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []), ...(schema.anyOf ?? []).flatMap(typesOf)];
  const typeOf = (v: unknown) => (v === null ? ['null'] : Array.isArray(v) ? ['array'] : typeof v === 'number' ? (Number.isInteger(v) ? ['number', 'integer'] : ['number']) : [typeof v]);
  const out: HostileRequest[] = [];
  for (const tool of s.tools) {
    const base = plausible('', { type: 'object', properties: tool.inputSchema.properties ?? {} }) as Record<string, unknown>;
    for (const name of [...Object.keys(tool.inputSchema.properties ?? {}), '__proto__', 'constructor']) {
      for (const wrong of WRONG_TYPES) {
        const args = Object.assign(Object.create(null) as Record<string, unknown>, base);
        Object.defineProperty(args, name, { value: wrong, enumerable: true, writable: true, configurable: true });
        const allowed = typesOf(tool.inputSchema.properties?.[name] ?? {});
        out.push({
          wrongType: allowed.length > 0 && !typeOf(wrong).some((t) => allowed.includes(t)),
          target: 'POST /api/mcp every argument × wrong types',
          method: 'POST',
          path: '/api/mcp',
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...s.credentials[out.length % s.credentials.length] },
          body: JSON.stringify({ jsonrpc: '2.0', id: out.length, method: 'tools/call', params: { name: tool.name, arguments: args } }),
        });
      }
    }
  }
  return out;
}

export interface OAuthSetup {
  clientId: string;
  redirectUri: string;
  /** A real refresh token, access token and workspace; `ids` are its key, user, product, project and grant ids (offered for `{id}`). */
  refreshToken: string;
  accessToken: string;
  workspaceId: string;
  ids: string[];
  /** A signed-in web session: its cookie header and a CSRF token for it. */
  session: { cookie: string; csrf: string; interactionCsrf: string };
}

type Param = [string, string];
interface Endpoint { target: string; method: string; path: string; kind: 'query' | 'form' | 'json' | 'none'; params: Param[]; session?: boolean }

/** Every endpoint of the authorization server and its pages, each with a valid-looking set of parameters. */
function endpoints(s: OAuthSetup): Endpoint[] {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const authorize: Param[] = [['response_type', 'code'], ['client_id', s.clientId], ['redirect_uri', s.redirectUri], ['code_challenge', challenge], ['code_challenge_method', 'S256'], ['state', 'st'], ['scope', 'mcp:read mcp:write'], ['resource', 'http://localhost/api/mcp']];
  const ws = `/account/w/${s.workspaceId}`;
  const productId = s.ids[2];
  return [
    ...['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/oauth/jwks', '/oauth/clients', '/oauth/clients/claude-code']
      .map((path): Endpoint => ({ target: `GET ${path.replace(/\/clients\/.+/, '/clients/:slug')}`, method: 'GET', path, kind: 'query', params: [['x', '1']] })),
    { target: 'POST /oauth/register', method: 'POST', path: '/oauth/register', kind: 'json', params: [['redirect_uris', '["http://127.0.0.1:7/cb"]'], ['client_name', 'Fuzz'], ['grant_types', '["authorization_code","refresh_token"]'], ['response_types', '["code"]'], ['token_endpoint_auth_method', 'none'], ['scope', 'mcp:read']] },
    { target: 'POST /register', method: 'POST', path: '/register', kind: 'json', params: [['redirect_uris', '["https://a.example/cb"]']] },
    { target: 'GET /oauth/authorize', method: 'GET', path: '/oauth/authorize', kind: 'query', params: authorize },
    { target: 'POST /oauth/authorize', method: 'POST', path: '/oauth/authorize', kind: 'form', params: authorize },
    { target: 'GET /authorize', method: 'GET', path: '/authorize', kind: 'query', params: authorize },
    { target: 'POST /oauth/token authorization_code', method: 'POST', path: '/oauth/token', kind: 'form', params: [['grant_type', 'authorization_code'], ['code', 'loupe_ac_x'], ['redirect_uri', s.redirectUri], ['client_id', s.clientId], ['code_verifier', 'v'.repeat(43)], ['resource', 'http://localhost/api/mcp']] },
    { target: 'POST /oauth/token refresh_token', method: 'POST', path: '/oauth/token', kind: 'form', params: [['grant_type', 'refresh_token'], ['refresh_token', s.refreshToken], ['client_id', s.clientId]] },
    { target: 'POST /oauth/token other grants', method: 'POST', path: '/oauth/token', kind: 'form', params: [['grant_type', 'client_credentials'], ['client_id', s.clientId], ['client_secret', 'x'], ['username', 'u'], ['password', 'p'], ['device_code', 'd'], ['assertion', 'a.b.c'], ['subject_token', 't']] },
    { target: 'POST /token', method: 'POST', path: '/token', kind: 'form', params: [['grant_type', 'refresh_token'], ['refresh_token', 'x'], ['client_id', s.clientId]] },
    { target: 'POST /oauth/revoke', method: 'POST', path: '/oauth/revoke', kind: 'form', params: [['token', s.accessToken], ['token_type_hint', 'access_token'], ['client_id', s.clientId]] },
    { target: 'GET /oauth/userinfo', method: 'GET', path: '/oauth/userinfo', kind: 'query', params: [['access_token', s.accessToken], ['authorization', `Bearer ${s.accessToken}`]] },
    { target: 'POST /oauth/userinfo', method: 'POST', path: '/oauth/userinfo', kind: 'form', params: [['access_token', s.accessToken], ['authorization', `Bearer ${s.accessToken}`]] },
    { target: 'POST /oauth/introspect', method: 'POST', path: '/oauth/introspect', kind: 'form', params: [['token', s.accessToken], ['client_id', s.clientId]] },
    { target: 'GET /oauth/interaction/:uid', method: 'GET', path: '/oauth/interaction/{uid}', kind: 'query', params: [['workspace', s.workspaceId], ['choose', '1']], session: true },
    // Sign-out with a token that is not the session's: a real one would end the session the other requests use.
    ...['email', 'code', 'workspace', 'signout', 'consent'].map((step): Endpoint => ({
      target: `POST /oauth/interaction/:uid/${step}`, method: 'POST', path: `/oauth/interaction/{uid}/${step}`, kind: 'form', session: true,
      params: [['_csrf', step === 'signout' ? 'not-the-token' : '{icsrf}'], ['email', 'fuzz@fuzz.test'], ['code', '123456'], ['name', 'Fuzz ws'], ['workspace', s.workspaceId], ['decision', 'deny'], ['third_party', 'yes']],
    })),
    { target: 'GET /account/sign-in', method: 'GET', path: '/account/sign-in', kind: 'query', params: [['return_to', '/account'], ['email', 'a@b.test']] },
    { target: 'POST /account/sign-in', method: 'POST', path: '/account/sign-in', kind: 'form', params: [['_csrf', '{csrf}'], ['email', 'fuzz@fuzz.test'], ['return_to', '/account']], session: true },
    { target: 'POST /account/sign-in/code', method: 'POST', path: '/account/sign-in/code', kind: 'form', params: [['_csrf', '{csrf}'], ['email', 'fuzz@fuzz.test'], ['code', '123456'], ['return_to', '//evil.example']], session: true },
    { target: 'POST /account/workspaces', method: 'POST', path: '/account/workspaces', kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'Fuzz']], session: true },
    { target: 'POST /account/delete', method: 'POST', path: '/account/delete', kind: 'form', params: [['_csrf', 'not-the-token'], ['confirm', 'fuzz@fuzz.test']], session: true },
    { target: 'POST /account/w/:ws/keys', method: 'POST', path: `${ws}/keys`, kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'k'], ['permissions', 'mcp:read'], ['permissions', 'api:read'], ['product', productId!]], session: true },
    { target: 'POST /account/w/:ws/keys/:id/revoke', method: 'POST', path: `${ws}/keys/{id}/revoke`, kind: 'form', params: [['_csrf', '{csrf}']], session: true },
    { target: 'POST /account/w/:ws/members/invite', method: 'POST', path: `${ws}/members/invite`, kind: 'form', params: [['_csrf', '{csrf}'], ['email', 'inv@fuzz.test'], ['role', 'member']], session: true },
    { target: 'POST /account/w/:ws/members/:id/role', method: 'POST', path: `${ws}/members/{id}/role`, kind: 'form', params: [['_csrf', '{csrf}'], ['role', 'admin']], session: true },
    { target: 'POST /account/w/:ws/members/:id/remove', method: 'POST', path: `${ws}/members/{id}/remove`, kind: 'form', params: [['_csrf', '{csrf}']], session: true },
    { target: 'POST /account/w/:ws/invitations/:id/cancel', method: 'POST', path: `${ws}/invitations/{id}/cancel`, kind: 'form', params: [['_csrf', '{csrf}']], session: true },
    { target: 'GET /account/invitations/:token', method: 'GET', path: '/account/invitations/{id}', kind: 'query', params: [], session: true },
    { target: 'POST /account/invitations/:token', method: 'POST', path: '/account/invitations/{id}', kind: 'form', params: [['_csrf', '{csrf}']], session: true },
    { target: 'POST /account/w/:ws/apps/:grant/revoke', method: 'POST', path: `${ws}/apps/{id}/revoke`, kind: 'form', params: [['_csrf', '{csrf}']], session: true },
    { target: 'POST /account/w/:ws/products', method: 'POST', path: `${ws}/products`, kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'P']], session: true },
    { target: 'POST /account/w/:ws/products/:id/rename', method: 'POST', path: `${ws}/products/{id}/rename`, kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'P2']], session: true },
    { target: 'POST /account/w/:ws/products/:id/projects', method: 'POST', path: `${ws}/products/{id}/projects`, kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'J']], session: true },
    { target: 'POST /account/w/:ws/projects/:id/rename', method: 'POST', path: `${ws}/projects/{id}/rename`, kind: 'form', params: [['_csrf', '{csrf}'], ['name', 'J2']], session: true },
    ...['keys', 'members', 'apps', 'products', 'usage'].map((p): Endpoint => ({ target: `GET /account/w/:ws/${p}`, method: 'GET', path: `${ws}/${p}`, kind: 'query', params: [['done', 'revoked']], session: true })),
    { target: 'GET /auth/idp/:provider/start', method: 'GET', path: '/auth/idp/{id}/start', kind: 'query', params: [['return_to', '/account']] },
    { target: 'GET /auth/idp/callback', method: 'GET', path: '/auth/idp/callback', kind: 'query', params: [['code', 'c'], ['state', 's'], ['error', 'access_denied']] },
  ];
}

/** One parameter mutated: kept, dropped, duplicated, oversized, or replaced by an odd string. */
const mutation = fc.oneof(
  { arbitrary: fc.constant('keep'), weight: 30 },
  { arbitrary: fc.constantFrom('drop', 'duplicate'), weight: 6 },
  { arbitrary: fc.constant('oversize'), weight: 2 },
  { arbitrary: fc.constant('odd'), weight: 5 },
  { arbitrary: fc.constant('empty'), weight: 2 },
);
/** Over a field's length limit, over 16 KB (the form parsers'), over 64 KB (the OAuth form parser's), over 1 MB. */
const OVERSIZES = [300, 17_000, 70_000, 1_100_000];

/** Requests to every OAuth endpoint and page, each parameter possibly missing, duplicated, oversized or malformed. */
export function oauthRequests(s: OAuthSetup, uid: () => string): fc.Arbitrary<HostileRequest> {
  const list = endpoints(s);
  return fc.tuple(
    fc.constantFrom(...list),
    fc.array(fc.tuple(mutation, oddString, fc.nat()), { minLength: 12, maxLength: 12 }),
    fc.option(fc.tuple(oddString, oddString), { freq: 3 }),
    fc.constantFrom('session', 'session', 'session', 'none', 'garbage'),
    fc.constantFrom('right', 'right', 'right', 'right', 'wrong-type', 'wrong-method', 'raw-garbage'),
    fc.oneof(fc.constantFrom(...s.ids, s.workspaceId), oddString),
    fc.integer({ min: 1, max: 250 }),
  ).map(([e, muts, extra, cookie, shape, id, ipTail]) => {
    const params: Param[] = [];
    e.params.forEach(([k, v], i) => {
      const value = v === '{csrf}' ? s.session.csrf : v === '{icsrf}' ? s.session.interactionCsrf : v;
      const [how, odd, n] = muts[i % muts.length]!;
      if (how === 'drop') return;
      if (how === 'duplicate') params.push([k, value], [k, n % 2 ? odd : value]);
      else if (how === 'oversize') params.push([k, value + 'x'.repeat(OVERSIZES[n % OVERSIZES.length]!)]);
      else if (how === 'odd') params.push([k, odd]);
      else if (how === 'empty') params.push([k, '']);
      else params.push([k, value]);
    });
    if (extra) params.push(extra);
    if (muts[0]![0] === 'duplicate') params.push(['__proto__', 'x'], ['constructor', 'y'], ['a[b][c]', 'z']);
    const headers: Record<string, string> = { 'x-forwarded-for': `10.77.${ipTail}.${(muts[1]![2] % 250) + 1}` };
    if (cookie === 'session' && e.session) headers.cookie = s.session.cookie;
    if (cookie === 'garbage') headers.cookie = 'loupe_session=%ff%fe; _interaction=x; loupe_account_csrf=y';
    const auth = params.find(([k]) => k === 'authorization');
    if (auth) headers.authorization = auth[1].replace(/[\r\n\0]/g, '').replace(/[^\x20-\x7e]/g, '?');
    let path = e.path.replace('{uid}', uid()).replace('{id}', encodeURIComponent(id.toWellFormed()));
    let method = e.method;
    let body: string | undefined;
    const form = new URLSearchParams(params).toString();
    if (shape === 'wrong-method') method = method === 'GET' ? 'POST' : 'GET';
    if (method === 'GET' || e.kind === 'query') {
      path += (path.includes('?') ? '&' : '?') + form;
    } else if (e.kind === 'json') {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of params) {
        try {
          obj[k] = JSON.parse(v);
        } catch {
          obj[k] = v;
        }
      }
      body = JSON.stringify(obj);
      headers['content-type'] = 'application/json';
    } else {
      body = form;
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (method === 'GET') body = undefined;
    if (shape === 'wrong-type' && body !== undefined) headers['content-type'] = e.kind === 'json' ? 'application/x-www-form-urlencoded' : 'application/json';
    if (shape === 'raw-garbage' && method !== 'GET') body = `${form}&%ZZ=%E0%A4%A&x=%ED%A0%80&%00=%`;
    return { target: e.target, method, path, headers, ...(body !== undefined ? { body } : {}) };
  });
}
