import {
  addThirdPartyServer, listThirdPartyServers, removeThirdPartyServer,
} from '@loupe/third-party-mcp';
import type pg from 'pg';

/** A command given wrongly (missing flag, malformed value); the message says what to give. */
export class ThirdPartyUsageError extends Error {
  override name = 'ThirdPartyUsageError';
}

type Flags = Record<string, string | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new ThirdPartyUsageError(`Missing --${name}`);
  return v.trim();
}

/** `"Authorization: Bearer abc"` → `{ name: 'Authorization', value: 'Bearer abc' }`. */
export function parseHeaderFlag(input: string): { name: string; value: string } {
  const colon = input.indexOf(':');
  const name = colon < 0 ? '' : input.slice(0, colon).trim();
  const value = colon < 0 ? '' : input.slice(colon + 1).trim();
  if (!name || !value) throw new ThirdPartyUsageError('--header must look like "Name: value" (for example "Authorization: Bearer <token>")');
  return { name, value };
}

/** Runs `third-party <verb>`; returns the lines to print. Header values are never printed. */
export async function thirdPartyCommand(verb: string, flags: Flags, deps: { pool: pg.Pool; allowLoopback?: boolean }): Promise<string[]> {
  switch (verb) {
    case 'add': {
      const header = flags.header === undefined ? undefined : parseHeaderFlag(flags.header);
      const server = await addThirdPartyServer(deps.pool, {
        workspaceId: need(flags, 'workspace'),
        name: need(flags, 'name'),
        url: need(flags, 'url'),
        ...(header ? { authHeader: header } : {}),
        // The same rule as the fetcher that will call it: loopback only where FETCH_ALLOW_LOOPBACK says so.
        allowLoopback: deps.allowLoopback ?? false,
      });
      return [
        `Added third-party server ${server.id} (${server.name}) at ${server.url}, auth: ${server.hasAuth ? 'yes' : 'no'}`,
        `Its tools are offered as ${server.slug}__<tool>.`,
      ];
    }
    case 'list': {
      const servers = await listThirdPartyServers(deps.pool, need(flags, 'workspace'));
      if (!servers.length) return ['No third-party servers'];
      return servers.map((s) =>
        [s.id, s.name, `prefix=${s.slug}__`, s.url, `auth: ${s.hasAuth ? 'yes' : 'no'}`, `created ${s.createdAt.toISOString()}`].join('  '),
      );
    }
    case 'remove': {
      const workspaceId = need(flags, 'workspace');
      const id = need(flags, 'id');
      if (!(await removeThirdPartyServer(deps.pool, workspaceId, id))) {
        throw new ThirdPartyUsageError(`No third-party server ${id} in workspace ${workspaceId} (see: third-party list --workspace ${workspaceId})`);
      }
      return [`Removed third-party server ${id}`];
    }
    default:
      throw new ThirdPartyUsageError(
        verb ? `Unknown command "third-party ${verb}" (use add, list or remove)` : 'Missing the third-party command (add, list or remove)',
      );
  }
}
