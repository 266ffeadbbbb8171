import type { Provider } from 'oidc-provider';

type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** How the consent page presents an application: its name, where it sends you back, and what to warn about. */
export function clientView(client: Client, issuer: string, redirectUri: string | undefined) {
  const name = (client.clientName as string | undefined)?.trim() || 'An unnamed application';
  const uris: readonly string[] = client.redirectUris ?? [];
  const hostOf = (u: string) => {
    try {
      const url = new URL(u);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`;
    } catch {
      return u;
    }
  };
  const isLocal = (u: string) => {
    try {
      return LOOPBACK.has(new URL(u).hostname);
    } catch {
      return false;
    }
  };
  return {
    id: client.clientId,
    name,
    initial: name.charAt(0).toUpperCase(),
    redirectHost: hostOf(redirectUri ?? uris[0] ?? ''),
    verified: client.clientId.startsWith(`${issuer}/oauth/clients/`),
    localOnly: uris.length > 0 && uris.every(isLocal),
  };
}
