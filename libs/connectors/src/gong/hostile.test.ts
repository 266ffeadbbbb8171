import { itemOfRecord, validateItems } from '@loupe/records';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadContext, VendorPage } from '../connector';
import { VendorRequestError, type VendorGet } from '../vendor-http';
import { gongConnector, type GongSettings } from './connector';

// Hostile and malformed Gong answers, generated: whatever Gong sends, a read either yields pages whose every
// record the record schema accepts (what it cannot map is refused with a reason), or ends with a VendorRequestError
// that says what was wrong. Never another error, never a record that would fail validation.

const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.jsonValue({ maxDepth: 3 }));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: anyValue });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ minLength: 300, maxLength: 600 }));
const stamp = fc.oneof(
  { weight: 4, arbitrary: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()) },
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2026-02-18T02:30:00-07:00', '2026-02-30T00:00:00Z', '+275760-09-13T00:00:00Z', '0000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', 'yesterday', ''),
);
const id = fc.oneof({ weight: 6, arbitrary: fc.bigInt({ min: 1n, max: 99_999_999_999_999_999_999n }).map(String) }, fc.integer({ min: 0 }), text);
const party = maybe(fc.record({
  id: maybe(id), speakerId: maybe(id), name: maybe(text), title: maybe(text), userId: maybe(id),
  emailAddress: maybe(fc.oneof(fc.emailAddress(), text, fc.constant('ANA@Globex.example '), fc.constant(`${'a'.repeat(250)}@x.example`))),
  affiliation: maybe(fc.constantFrom('Internal', 'External', 'Unknown', 'internal', 'EXTERNAL', 'Partner', '')),
}, { requiredKeys: [] }));
const media = maybe(fc.record({
  audioUrl: maybe(fc.oneof(fc.webUrl(), text, fc.constantFrom('javascript:alert(1)', 'https://', 'http://[::1', `https://x.example/${'a'.repeat(3000)}`))),
  videoUrl: maybe(fc.oneof(fc.webUrl(), text)),
}, { requiredKeys: [] }));
const call = maybe(fc.record({
  metaData: maybe(fc.record({
    id: maybe(id), title: maybe(text), started: maybe(stamp), scheduled: maybe(stamp), duration: maybe(fc.oneof(fc.nat(), fc.double(), fc.constant(-1))),
    direction: maybe(text), scope: maybe(text), system: maybe(text), language: maybe(text), purpose: maybe(text), url: maybe(text), workspaceId: maybe(id),
  }, { requiredKeys: ['id', 'started'] })),
  parties: maybe(fc.array(party, { maxLength: 6 })),
  media,
}, { requiredKeys: ['metaData'] }));
const sentence = maybe(fc.record({ start: maybe(fc.oneof(fc.nat(), fc.double(), fc.constant(-5))), end: maybe(fc.oneof(fc.nat(), fc.double())), text: maybe(text) }, { requiredKeys: ['text'] }));
const monologue = maybe(fc.record({ speakerId: maybe(id), topic: maybe(text), sentences: maybe(fc.array(sentence, { maxLength: 5 })) }, { requiredKeys: ['sentences'] }));
const records = maybe(fc.record({ totalRecords: maybe(fc.nat()), currentPageSize: maybe(fc.nat()), currentPageNumber: maybe(fc.nat()) }, { requiredKeys: [] }));
const extensive = maybe(fc.record({ requestId: maybe(text), records, calls: maybe(fc.array(call, { maxLength: 6 })) }, { requiredKeys: ['records', 'calls'] }));
const transcripts = (ids: unknown[]) => maybe(fc.record({
  requestId: maybe(text), records,
  callTranscripts: maybe(fc.array(maybe(fc.record({ callId: maybe(fc.oneof(fc.constantFrom(...(ids.length ? ids : ['1'])), id)), transcript: maybe(fc.array(monologue, { maxLength: 4 })) }, { requiredKeys: ['callId', 'transcript'] })), { maxLength: 6 })),
}, { requiredKeys: ['records', 'callTranscripts'] }));

const routing = { productId: 'prod_1', projectId: 'proj_1' };

async function readAll(page: unknown, transcript: (callIds: unknown[]) => unknown): Promise<VendorPage[]> {
  const get = Object.assign(async (url: string, json?: unknown) => {
    const path = new URL(url).pathname;
    if (path === '/v2/calls/extensive') return page;
    if (path === '/v2/calls/transcript') return transcript(((json as { filter: { callIds: unknown[] } }).filter.callIds));
    throw new VendorRequestError(`${path}: 404 unexpected`, 404);
  }, { waits: [] as number[] }) satisfies VendorGet;
  const ctx: ReadContext<GongSettings> = {
    get, baseUrl: 'https://api.gong.io', settings: { start_date: '2026-01-01' }, routing, createdAt: new Date('2026-11-01T00:00:00Z'), now: () => Date.parse('2026-12-01T00:00:00Z'),
  };
  const pages: VendorPage[] = [];
  for await (const p of gongConnector.read(ctx, null)) pages.push(p);
  return pages;
}

describe('Gong: hostile and malformed answers', () => {
  it('maps what it can into records the schema accepts, refuses the rest with a reason, or fails the sync with a VendorRequestError', async () => {
    const outcomes = { pages: 0, records: 0, refused: 0, failed: 0 };
    await fc.assert(
      fc.asyncProperty(extensive, fc.array(transcripts([]), { minLength: 1, maxLength: 1 }), fc.context(), async (page, [transcriptPage], ctx) => {
        let pages: VendorPage[];
        try {
          pages = await readAll(page, () => transcriptPage);
        } catch (error) {
          ctx.log(String(error));
          expect(error).toBeInstanceOf(VendorRequestError);
          expect((error as Error).message).toMatch(/^\/v2\/calls\/(extensive|transcript): .+/);
          outcomes.failed++;
          return;
        }
        for (const p of pages) {
          outcomes.pages++;
          const { errors } = validateItems(p.records.map((r, index) => ({ ...itemOfRecord(r), index })));
          expect(errors).toEqual([]);
          outcomes.records += p.records.length;
          outcomes.refused += p.refused.length;
          for (const r of p.refused) {
            expect(r.object.length).toBeGreaterThan(0);
            expect(r.reason).toMatch(/: /);
          }
          expect(p.companies).toEqual([]);
          for (const person of p.people) expect(person.external_id.length).toBeLessThanOrEqual(256);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    console.log(`gong hostile: ${JSON.stringify(outcomes)}`);
    expect(outcomes.records).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.failed).toBeGreaterThan(0);
  }, 120_000);

  it('transcripts of calls the page did not name, or sent twice, change nothing of the calls it did', async () => {
    const page = { records: {}, calls: [{ metaData: { id: '1', started: '2026-01-01T00:00:00Z' } }] };
    const [mapped] = await readAll(page, () => ({
      records: {}, callTranscripts: [
        { callId: '2', transcript: [{ speakerId: '9', sentences: [{ start: 0, end: 1, text: 'Not this call' }] }] },
        { callId: '1', transcript: [{ speakerId: '9', sentences: [{ start: 0, end: 1, text: 'First part' }] }] },
        { callId: '1', transcript: [{ speakerId: '9', sentences: [{ start: 2, end: 3, text: 'Second part' }] }] },
      ],
    }));
    expect(mapped!.records).toHaveLength(1);
    expect((mapped!.records[0]!.data.transcript as { text: string }[]).map((t) => t.text)).toEqual(['First part', 'Second part']);
  });
});
