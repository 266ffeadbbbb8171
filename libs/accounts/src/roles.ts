import type { Role } from './workspaces';

/** Owners and admins: who manage keys, members, applications, products, retention, and delete sources. */
const MANAGERS: readonly Role[] = ['owner', 'admin'];
const OWNERS: readonly Role[] = ['owner'];

/**
 * What not every member of a workspace may do, and who may: one table read by the account pages, the
 * ingestion API (for an API key, its creator's role now) and the MCP server, so they cannot disagree
 * (issue 41 finding 6). `what` completes "Only owners can …" in the refusals.
 */
export const ROLE_RULES = {
  /** Erasing a person: it cannot be undone (Privacy page, POST /api/v1/erasures). */
  erasePerson: { roles: OWNERS, what: 'erase a person' },
  /** Lifting a suppression: the person's records are accepted again (Privacy page, DELETE /api/v1/suppressions/{id}). */
  liftSuppression: { roles: OWNERS, what: 'lift a suppression' },
  /** Deleting a source with its record, attachments and signals (a source's page, DELETE /api/v1/sources/{id} and /records/{id}). */
  deleteSource: { roles: MANAGERS, what: 'delete sources (or the records they were built from)' },
  /** Using the third-party MCP servers the owners connected (mcp:thirdparty keys). */
  useThirdPartyTools: { roles: OWNERS, what: 'use third-party tools' },
} as const satisfies Record<string, { roles: readonly Role[]; what: string }>;

export type RoleRule = keyof typeof ROLE_RULES;

/** Whether `role` (undefined or null: not a member) may do what `rule` guards. */
export function roleMay(role: Role | null | undefined, rule: RoleRule): boolean {
  return role !== null && role !== undefined && ROLE_RULES[rule].roles.includes(role);
}

/** Owners and admins manage keys, members and applications; members manage only their own. */
export function canManage(role: Role | null | undefined): boolean {
  return role !== null && role !== undefined && MANAGERS.includes(role);
}

/** An API key as far as roles go: it acts as its creator, with the creator's role now (null: the creator left). */
export interface KeyCreator {
  /** Null for a key made by the admin CLI without a creator: it acts as the workspace. */
  createdByUserId: string | null;
  creatorRole: Role | null;
}

/** Whether a key may do what `rule` guards: its creator's role now decides; a key made by the admin CLI without a creator may. */
export function keyMay(key: KeyCreator, rule: RoleRule): boolean {
  return key.createdByUserId === null || roleMay(key.creatorRole, rule);
}

/** "owners", "owners and admins": who `rule` allows, for messages. */
export function rolesAllowed(rule: RoleRule): string {
  const names = ROLE_RULES[rule].roles.map((r) => `${r}s`);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!;
}

/**
 * Why a key may not do what `rule` guards (undefined when it may): who may, and what its creator is
 * now, as the 403 of the ingestion API says it.
 */
export function keyRefusal(key: KeyCreator, rule: RoleRule): string | undefined {
  if (keyMay(key, rule)) return undefined;
  const allowed = rolesAllowed(rule);
  const creator = key.creatorRole === null
    ? 'who no longer belongs to this workspace'
    : `who is ${key.creatorRole === 'admin' ? 'an admin' : 'a member'} of this workspace`;
  return `Only ${allowed} can ${ROLE_RULES[rule].what}: this API key acts as the person who created it, ${creator}. ` +
    `Ask one of the workspace's ${allowed} to do it, or to create a key for it.`;
}
