import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { systemClock } from '@loupe/http';
import { createAdapterClass } from './adapter';
import { sha256 } from './hash';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe('registered clients in the adapter', () => {
  const metadata = (id: string) => ({ client_id: id, client_name: 'Notebook', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });

  it('are read from the database once per process (they never change), and forgotten when destroyed', async () => {
    const Adapter = createAdapterClass({ pool: t.pool, clock: systemClock });
    const clients = new Adapter('Client');
    await clients.upsert('cli_kept', metadata('cli_kept'));
    expect(await clients.find('cli_kept')).toMatchObject({ client_id: 'cli_kept', client_name: 'Notebook' });
    // The row is gone behind the adapter's back: the process still knows the client, another process does not.
    await t.pool.query("DELETE FROM oauth_models WHERE model = 'Client' AND id_hash = $1", [sha256('cli_kept')]);
    expect(await clients.find('cli_kept')).toMatchObject({ client_id: 'cli_kept' });
    expect(await new (createAdapterClass({ pool: t.pool, clock: systemClock }))('Client').find('cli_kept')).toBeUndefined();
    await clients.destroy('cli_kept');
    expect(await clients.find('cli_kept')).toBeUndefined();
  });

  it('an unknown client is not remembered: once registered, it is found', async () => {
    const clients = new (createAdapterClass({ pool: t.pool, clock: systemClock }))('Client');
    expect(await clients.find('cli_later')).toBeUndefined();
    await new (createAdapterClass({ pool: t.pool, clock: systemClock }))('Client').upsert('cli_later', metadata('cli_later'));
    expect(await clients.find('cli_later')).toMatchObject({ client_id: 'cli_later' });
  });

  it('a caller changing what it was given does not change what the next caller gets', async () => {
    const clients = new (createAdapterClass({ pool: t.pool, clock: systemClock }))('Client');
    await clients.upsert('cli_copy', metadata('cli_copy'));
    const first = (await clients.find('cli_copy'))!;
    first.client_name = 'Changed';
    expect(await clients.find('cli_copy')).toMatchObject({ client_name: 'Notebook' });
  });
});
