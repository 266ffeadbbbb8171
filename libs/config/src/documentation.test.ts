import { describe, expect, it } from 'vitest';
import { documentedVariables, envSchema, variableGroups } from './index';

describe('the documentation in envSchema', () => {
  it('gives every variable a description and a group in the schema itself', () => {
    for (const [name, field] of Object.entries(envSchema.shape)) {
      expect(field.description, name).toMatch(/\w{3,}/);
      expect(Object.keys(variableGroups), name).toContain(field.meta()?.group);
    }
  });

  it('reads defaults and ranges from the schema, not from the words', () => {
    const byName = new Map(documentedVariables().map((v) => [v.name, v]));
    expect(byName.get('PORT')).toMatchObject({ default: '`8080`', values: 'an integer, 0 to 65535', requiredWhen: undefined });
    expect(byName.get('WORKER_ENABLED')?.default).toBe('`true`');
    expect(byName.get('LOG_LEVEL')?.values).toContain('`silent`');
    expect(byName.get('ACCESS_TOKEN_TTL_SECONDS')?.values).toBe('an integer, 5 to 3600');
    expect(byName.get('MAIL_REPLY_DOMAIN')?.requiredWhen).toMatch(/INBOUND_SMTP_PORT/);
    expect(byName.get('OIDC_<ID>_ISSUER')?.requiredWhen).toMatch(/OIDC_PROVIDERS/);
  });
});
