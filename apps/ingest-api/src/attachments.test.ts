import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, rec, recordsOf, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const BYTES = Buffer.from('%PDF-1.7 the quarterly review, as the customer sent it\n');

/** A record with two attachments; the first is stored as the worker leaves a finished download. */
async function recordWithFiles(): Promise<{ recordId: string; key: string }> {
  const sent = await post(h.base, h.a.writeKey, [rec(h.a, {
    _attachments: [
      { type: 'file', vendor_url: 'https://files.example/q3.pdf', filename: 'Q3 «review» "final".pdf' },
      { type: 'audio', vendor_url: 'https://files.example/call.mp3' },
    ],
  })]);
  expect(sent.status).toBe(202);
  const [recordId] = await recordsOf(h, sent.body.batchId);
  const key = `${h.a.workspaceId}/${sent.body.batchId}/${recordId}-0`;
  await h.storage.put(key, Readable.from([BYTES]), { maxBytes: 1 << 20 });
  await h.t.pool.query(
    `UPDATE attachments SET status = 'COMPLETE', storage_key = $2, stored_size = $3, stored_mime_type = 'application/pdf' WHERE record_id = $1 AND position = 0`,
    [recordId, key, BYTES.length],
  );
  return { recordId: recordId!, key };
}

describe('GET /api/v1/records/{id}/attachments/{position}', () => {
  it('streams the stored file as a download named as sent, typed as stored, never to be rendered', async () => {
    const { recordId } = await recordWithFiles();
    const res = await fetch(`${h.base}/api/v1/records/${recordId}/attachments/0`, { headers: { 'x-api-key': h.a.readKey } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(BYTES);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(BYTES.length));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Q3 _review_ _final_.pdf"; filename*=UTF-8''Q3%20%C2%ABreview%C2%BB%20%22final%22.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  });

  it('says why there is no file: a position the record lacks, one not downloaded yet, one gone from storage', async () => {
    const { recordId, key } = await recordWithFiles();
    const none = await get(h.base, h.a.readKey, `/api/v1/records/${recordId}/attachments/2`);
    expect(none).toMatchObject({ status: 404, body: { error: 'NOT_FOUND', message: `Record "${recordId}" has no attachment at position 2` } });
    const pending = await get(h.base, h.a.readKey, `/api/v1/records/${recordId}/attachments/1`);
    expect(pending).toMatchObject({ status: 404, body: { message: `Attachment 1 of record "${recordId}" has no file: its status is PENDING (the worker has not finished downloading it)` } });
    await h.storage.delete(key);
    const gone = await get(h.base, h.a.readKey, `/api/v1/records/${recordId}/attachments/0`);
    expect(gone).toMatchObject({ status: 404, body: { message: `Attachment 0 of record "${recordId}" is no longer stored` } });
  });

  it('refuses a position that is not one, naming the parameter', async () => {
    for (const position of ['x', '-1', '1.5', '99999999', '10001']) {
      const r = await get(h.base, h.a.readKey, `/api/v1/records/rec_1/attachments/${position}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^Path parameter "position" must be/);
    }
  });

  it('keeps another workspace out: its key finds no such record, as for one that never was', async () => {
    const { recordId } = await recordWithFiles();
    const theirs = await get(h.base, h.b.readKey, `/api/v1/records/${recordId}/attachments/0`);
    const missing = await get(h.base, h.b.readKey, '/api/v1/records/rec_doesnotexist/attachments/0');
    expect(theirs.status).toBe(404);
    expect(theirs.body.message.replace(recordId, 'X')).toBe(missing.body.message.replace('rec_doesnotexist', 'X'));
  });
});
