import { describe, expect, it } from 'vitest';
import { canManage, keyMay, keyRefusal, roleMay, rolesAllowed, ROLE_RULES } from './index';

describe('who may do what (ROLE_RULES: the pages, the ingestion API and the MCP server read the same table)', () => {
  it('erasing a person, lifting a suppression and third-party tools are for owners; deleting a source for owners and admins, as managing is', () => {
    const who = (rule: keyof typeof ROLE_RULES) => (['owner', 'admin', 'member', undefined, null] as const).filter((r) => roleMay(r, rule));
    expect(who('erasePerson')).toEqual(['owner']);
    expect(who('liftSuppression')).toEqual(['owner']);
    expect(who('useThirdPartyTools')).toEqual(['owner']);
    expect(who('deleteSource')).toEqual(['owner', 'admin']);
    expect((['owner', 'admin', 'member', undefined] as const).filter(canManage)).toEqual(who('deleteSource'));
    expect(rolesAllowed('deleteSource')).toBe('owners and admins');
  });

  it('a key acts with its creator\'s role now; a key made without a creator (admin CLI) acts as the workspace', () => {
    expect(keyMay({ createdByUserId: 'usr_1', creatorRole: 'owner' }, 'erasePerson')).toBe(true);
    expect(keyMay({ createdByUserId: 'usr_1', creatorRole: 'admin' }, 'erasePerson')).toBe(false);
    expect(keyMay({ createdByUserId: 'usr_1', creatorRole: null }, 'deleteSource')).toBe(false);
    expect(keyMay({ createdByUserId: null, creatorRole: null }, 'erasePerson')).toBe(true);
    expect(keyRefusal({ createdByUserId: 'usr_1', creatorRole: 'admin' }, 'deleteSource')).toBeUndefined();
    expect(keyRefusal({ createdByUserId: 'usr_1', creatorRole: 'member' }, 'deleteSource')).toBe(
      'Only owners and admins can delete sources (or the records they were built from): this API key acts as the person who created it, who is a member of this workspace. ' +
      "Ask one of the workspace's owners and admins to do it, or to create a key for it.",
    );
    expect(keyRefusal({ createdByUserId: 'usr_1', creatorRole: null }, 'erasePerson')).toMatch(/^Only owners can erase a person: .* who no longer belongs to this workspace\./);
  });
});
