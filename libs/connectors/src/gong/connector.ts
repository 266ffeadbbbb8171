import { gongCredentialsSchema, gongSettingsSchema, type GongCredentials, type GongSettings } from '@loupe/records';
import { z } from 'zod';
import type { Connector, ReadContext, VendorPage } from '../connector';
import { parseAnswer, parseEach } from '../parse';
import { VendorRequestError } from '../vendor-http';
import { callRecord, externalPeople, storable } from './map';
import { callSchema, callsPageSchema, callTranscriptSchema, partySchema, transcriptsPageSchema, type GongMonologue, type GongParty } from './shapes';

export { gongCredentialsSchema, gongSettingsSchema, type GongCredentials, type GongSettings };

export const GONG_DEFAULT_BASE_URL = 'https://api.gong.io';
const DEFAULT_BACKFILL_DAYS = 90;
/** Minutes a call's start must be old before it is read: Gong transcribes a call after it ends. */
export const GONG_DEFAULT_DELAY_MINUTES = 180;
const EXTENSIVE_PATH = '/v2/calls/extensive';
const TRANSCRIPT_PATH = '/v2/calls/transcript';

/**
 * Where a sync resumes. Gong lists calls by start time in a window `[from, to)` with a cursor of its own for the
 * window's pages; `page` is that cursor while a window is read, and a window read to its end leaves `{ from: to }`:
 * the next sync reads the calls that started since.
 */
const cursorSchema = z.union([
  z.strictObject({ from: z.iso.datetime(), to: z.iso.datetime(), page: z.string().min(1).max(4096).optional() }),
  z.strictObject({ from: z.iso.datetime() }),
]);
type Cursor = z.infer<typeof cursorSchema>;
interface Window { from: string; to: string; page?: string }

/** How a refused object is named: Gong's id for it (as text PostgreSQL can store), else its position in the page. */
function idOf(item: unknown, i: number, key: 'metaData' | 'callId'): string {
  const record = (value: unknown) => (value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);
  const id = key === 'metaData' ? record(record(item)?.metaData)?.id : record(item)?.callId;
  return typeof id === 'string' || typeof id === 'number' ? storable(String(id)).slice(0, 64) : `#${i}`;
}

/** Gong answers a window or a set of calls with nothing in it with a 404 and this message, not an empty page. */
function isNoCallsFound(error: unknown): boolean {
  return error instanceof VendorRequestError && error.status === 404 && /no calls found/i.test(error.message);
}

async function post(ctx: ReadContext<GongSettings>, path: string, body: unknown): Promise<unknown | undefined> {
  try {
    return await ctx.get(new URL(path, ctx.baseUrl).toString(), body);
  } catch (error) {
    if (isNoCallsFound(error)) return undefined;
    throw error;
  }
}

/** The transcripts of a page's calls, by call id, following Gong's cursor; a call Gong has no transcript for is absent. */
async function transcriptsOf(ctx: ReadContext<GongSettings>, callIds: string[], refused: VendorPage['refused']): Promise<Map<string, GongMonologue[]>> {
  const out = new Map<string, GongMonologue[]>();
  if (!callIds.length) return out;
  let cursor: string | undefined;
  for (;;) {
    const body = await post(ctx, TRANSCRIPT_PATH, { filter: { callIds }, ...(cursor ? { cursor } : {}) });
    if (body === undefined) return out;
    const page = parseAnswer(transcriptsPageSchema, body, `${TRANSCRIPT_PATH}: the answer is not a page Gong documents`);
    for (const t of parseEach(callTranscriptSchema, page.callTranscripts, (item, i) => `transcript of call ${idOf(item, i, 'callId')}`, refused)) {
      out.set(t.callId, [...(out.get(t.callId) ?? []), ...t.transcript]);
    }
    const next = page.records.cursor ?? undefined;
    if (!next) return out;
    if (next === cursor) throw new VendorRequestError(`${TRANSCRIPT_PATH}: Gong gave the same cursor twice`);
    cursor = next;
  }
}

/** One page of the window's calls, with their parties, media and transcripts, mapped. */
async function readPage(ctx: ReadContext<GongSettings>, window: Window): Promise<VendorPage> {
  const includeMedia = ctx.settings.include_media ?? true;
  const body = await post(ctx, EXTENSIVE_PATH, {
    filter: { fromDateTime: window.from, toDateTime: window.to, ...(ctx.settings.workspace_id ? { workspaceId: ctx.settings.workspace_id } : {}) },
    contentSelector: { exposedFields: { parties: true, media: includeMedia } },
    ...(window.page ? { cursor: window.page } : {}),
  });
  const done: VendorPage = { records: [], companies: [], people: [], refused: [], cursor: { from: window.to }, done: true };
  if (body === undefined) return done;
  const page = parseAnswer(callsPageSchema, body, `${EXTENSIVE_PATH}: the answer is not a page Gong documents`);
  const refused: VendorPage['refused'] = [];
  const calls = parseEach(callSchema, page.calls, (item, i) => `call ${idOf(item, i, 'metaData')}`, refused);
  const transcripts = await transcriptsOf(ctx, calls.map((c) => c.metaData.id), refused);
  const records = [];
  const parties: GongParty[] = [];
  for (const call of calls) {
    const own = parseEach(partySchema, call.parties ?? [], (_item, i) => `party ${i + 1} of call ${call.metaData.id}`, refused);
    parties.push(...own);
    // Media URLs are given only when asked for: one the settings did not ask for is not taken either.
    records.push(callRecord(ctx.routing, includeMedia ? call : { ...call, media: null }, own, transcripts.get(call.metaData.id)));
  }
  const next = page.records.cursor ?? undefined;
  if (next && next === window.page) throw new VendorRequestError(`${EXTENSIVE_PATH}: Gong gave the same cursor twice`);
  return {
    records, companies: [], people: externalPeople(parties), refused,
    cursor: next ? { from: window.from, to: window.to, page: next } : { from: window.to },
    done: !next,
  };
}

const wholeSecond = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString();

function startOf(ctx: ReadContext<GongSettings>): string {
  const ms = ctx.settings.start_date ? Date.parse(`${ctx.settings.start_date}T00:00:00Z`) : ctx.createdAt.getTime() - DEFAULT_BACKFILL_DAYS * 86_400_000;
  return new Date(ms).toISOString();
}

export const gongConnector: Connector<GongCredentials, GongSettings> = {
  kind: 'gong',
  credentialsSchema: gongCredentialsSchema,
  settingsSchema: gongSettingsSchema,
  defaultBaseUrl: GONG_DEFAULT_BASE_URL,
  authHeaders(credentials) {
    if ('access_token' in credentials) return { authorization: `Bearer ${credentials.access_token}` };
    return { authorization: `Basic ${Buffer.from(`${credentials.access_key}:${credentials.access_key_secret}`).toString('base64')}` };
  },
  async *read(ctx, stored) {
    const resume = cursorSchema.safeParse(stored);
    const saved: Cursor | undefined = resume.success ? resume.data : undefined;
    const now = ctx.now ? ctx.now() : Date.now();
    const end = new Date(now - (ctx.settings.delay_minutes ?? GONG_DEFAULT_DELAY_MINUTES) * 60_000).toISOString();
    // A window being read goes on as it was (Gong's cursor belongs to its filter); otherwise a new one, up to `end`,
    // from the whole second the last one ended in: Gong gives a call's start to the second, so a call that started in
    // that second after the last window was read is stamped before its end (read again, it is a duplicate).
    let window: Window = saved && 'to' in saved ? (saved as Window) : { from: saved?.from ? wholeSecond(saved.from) : startOf(ctx), to: end };
    if (!window.page && Date.parse(window.to) <= Date.parse(window.from)) return;
    let restarted = false;
    for (;;) {
      let page: VendorPage;
      try {
        page = await readPage(ctx, window);
      } catch (error) {
        // Gong refused the saved page cursor (expired, or never a good one): the window is read again from its
        // start, once; what was stored of it comes back as duplicates.
        const refusedCursor = error instanceof VendorRequestError && error.status === 400 && error.message.startsWith(`${EXTENSIVE_PATH}:`);
        if (!refusedCursor || !window.page || restarted) throw error;
        restarted = true;
        window = { from: window.from, to: window.to };
        continue;
      }
      yield page;
      if (page.done) return;
      window = page.cursor as Window;
    }
  },
};
