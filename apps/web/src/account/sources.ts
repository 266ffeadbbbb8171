import { roleMay } from '@loupe/accounts';
import { deleteEvidence } from '@loupe/lifecycle';
import { sendDownload } from '@loupe/http';
import { StorageNotFoundError } from '@loupe/storage';
import { Router, type Response } from 'express';
import { NATURES, RECORD_TYPES } from '@loupe/records';
import {
  attachmentFile, attachmentsOfSource, HIGHLIGHT, readSource, SEARCH_LIMITS, SearchQueryError, searchSources, startSemanticRankings, type SearchFilters, type SearchPage,
} from '@loupe/sources';
import { listProducts } from '@loupe/workspaces';
import { fmt } from './format';
import { pageOf } from './opportunities';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

export const SOURCES_PAGE = 20;
/** The last page of a search or a listing: where the count stops (SEARCH_LIMITS.maxOffset, 10,000 sources). */
export const SOURCES_LAST_PAGE = Math.ceil(SEARCH_LIMITS.maxOffset / SOURCES_PAGE);
/** Segments per page of a source read in full. */
export const SEGMENTS_PAGE = 100;

export const TYPE_LABELS: Record<string, string> = {
  email_thread: 'Email thread', email: 'Email', meeting_notes: 'Meeting notes', call: 'Call', call_transcription: 'Call transcript',
  conversation: 'Conversation', message: 'Message', document: 'Document', spreadsheet: 'Spreadsheet',
};
const ATTACHMENT_STATUS: Record<string, string> = {
  PENDING: 'Waiting to download', DOWNLOADING: 'Downloading', COMPLETE: 'Downloaded', FAILED: 'Download failed', NOT_DOWNLOADED: 'Not downloaded (no address given)',
};

/** An excerpt's text in pieces, the matched words marked: rendered escaped, each marked piece in <mark>. */
export function markedPieces(snippet: string): Array<{ text: string; mark: boolean }> {
  const pieces: Array<{ text: string; mark: boolean }> = [];
  for (const part of snippet.split(HIGHLIGHT.start)) {
    const end = part.indexOf(HIGHLIGHT.stop);
    if (end === -1) {
      if (part) pieces.push({ text: part, mark: false });
      continue;
    }
    pieces.push({ text: part.slice(0, end), mark: true });
    if (end + 1 < part.length) pieces.push({ text: part.slice(end + 1), mark: false });
  }
  return pieces;
}

/** A yyyy-mm-dd from a date field, as the start of that day in UTC (`end`: the start of the next day). */
function dayOf(raw: string, end = false): Date | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(raw)) return undefined;
  const d = new Date(`${raw}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return undefined;
  return end ? new Date(d.getTime() + 86_400_000) : d;
}

/**
 * Sources (issue 27): the search of find_sources as a page (words, filters, relevance or newest,
 * excerpts with the matched words marked) and one source read in full, paged, with its attachments.
 * The page ranks by words only: the index of meaning lives in the MCP server's process.
 */
export function sourcePages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  router.get('/account/w/:ws/sources', inWorkspace(async (ctx, req, res) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const projects = products.flatMap((p) => p.projects.map((j) => ({ id: j.id, name: `${p.name} / ${j.name}` })));
    const q = {
      query: str(req.query.q).trim().slice(0, 500),
      product: products.some((p) => p.id === str(req.query.product)) ? str(req.query.product) : '',
      project: projects.some((j) => j.id === str(req.query.project)) ? str(req.query.project) : '',
      type: (RECORD_TYPES as readonly string[]).includes(str(req.query.type)) ? str(req.query.type) : '',
      nature: (NATURES as readonly string[]).includes(str(req.query.nature)) ? str(req.query.nature) : '',
      since: dayOf(str(req.query.since)) ? str(req.query.since) : '',
      until: dayOf(str(req.query.until)) ? str(req.query.until) : '',
      sort: str(req.query.sort) === 'newest' ? 'newest' : 'relevance',
    };
    const page = pageOf(req.query.page, Number.MAX_SAFE_INTEGER);
    const filters: SearchFilters = {
      ...(q.product ? { productId: q.product } : {}), ...(q.project ? { projectId: q.project } : {}), ...(q.type ? { sourceType: q.type } : {}),
      ...(q.nature ? { nature: q.nature } : {}), ...(q.since ? { since: dayOf(q.since)! } : {}), ...(q.until ? { until: dayOf(q.until, true)! } : {}),
    };
    let found: SearchPage | undefined;
    let error: string | undefined;
    // Beyond the last counted page nothing is searched (issue 41: a deep page ranked every candidate's
    // segments until the statement timeout); the page says where the results end and how to reach further.
    if (page > SOURCES_LAST_PAGE) {
      error = `Page ${fmt.num(page)} is past the last page of sources Loupe shows: page ${fmt.num(SOURCES_LAST_PAGE)}, the first ${fmt.num(SEARCH_LIMITS.maxOffset)} sources. `
        + 'To reach further, narrow the search with words, a product, a type or dates.';
    } else {
      try {
        const offset = (page - 1) * SOURCES_PAGE;
        // Both halves, as find_sources ranks them, when this process holds the index of meaning.
        const semantic = q.query && deps.semanticSearch ? startSemanticRankings(deps.semanticSearch, ctx.workspace.id, q.query, filters, offset + SOURCES_PAGE) : undefined;
        found = await searchSources(ctx.rt.pool, ctx.workspace.id, {
          query: q.query || undefined, sort: q.query ? (q.sort as 'relevance' | 'newest') : 'newest', filters, limit: SOURCES_PAGE, offset,
          ...(semantic ? { extraRankings: semantic.rankings, rerank: deps.semanticSearch!.reranker(ctx.workspace.id) } : {}),
        });
      } catch (err) {
        if (!(err instanceof SearchQueryError)) throw err;
        error = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}`;
      }
    }
    const keep = new URLSearchParams(Object.entries(q).filter(([k, v]) => v && !(k === 'sort' && v === 'relevance')));
    const link = (n: number) => `/account/w/${ctx.workspace.id}/sources?${new URLSearchParams([...keep, ['page', String(n)]])}`;
    const total = found?.total ?? 0;
    const last = Math.max(1, Math.ceil(total / SOURCES_PAGE));
    renderAccount(res, 'account-sources', ctx, {
      title: 'Sources', section: 'sources', q, done: str(req.query.done) === 'deleted' ? 'The source was deleted, with its record, attachments and signals.' : undefined, products, projects, types: RECORD_TYPES.map((t) => ({ id: t, label: TYPE_LABELS[t] ?? t })), natures: NATURES,
      typeLabels: TYPE_LABELS, found, error, page, offset: (page - 1) * SOURCES_PAGE,
      items: (found?.items ?? []).map((s) => ({ ...s, occurredAt: new Date(s.occurred_at), excerpts: (s.excerpts ?? []).map((e) => ({ ...e, pieces: markedPieces(e.snippet) })) })),
      filtered: Object.entries(q).some(([k, v]) => v && k !== 'sort'),
      prevLink: page > 1 ? link(page - 1) : undefined, nextLink: page < last ? link(page + 1) : undefined,
      lastPageLink: page > SOURCES_LAST_PAGE ? link(SOURCES_LAST_PAGE) : undefined, lastPage: SOURCES_LAST_PAGE,
      productName: new Map(products.map((p) => [p.id, p.name])),
      /** The page of the source holding a segment, scrolled to it. */
      at: (position: number) => `${position >= SEGMENTS_PAGE ? `?from=${Math.floor(position / SEGMENTS_PAGE) * SEGMENTS_PAGE}` : ''}#seg-${position}`,
    }, page > SOURCES_LAST_PAGE ? 400 : 200);
  }));

  router.get('/account/w/:ws/sources/:id', inWorkspace((ctx: InWorkspace, req, res) => showSource(ctx, String(req.params.id), str(req.query.from), res, {}, 200, req.query)));

  /** An attachment's stored file, from the disk or the bucket whichever instance downloaded it: always a download, never rendered here. */
  router.get('/account/w/:ws/sources/:id/attachments/:position', inWorkspace(async (ctx: InWorkspace, req, res) => {
    const id = String(req.params.id);
    const position = /^\d{1,4}$/.test(String(req.params.position)) ? Number(req.params.position) : -1;
    const file = position < 0 ? undefined : await attachmentFile(ctx.rt.pool, ctx.workspace.id, { sourceId: id }, position);
    const body = file?.storageKey ? await deps.storage.get(file.storageKey).catch((error: unknown) => {
      if (error instanceof StorageNotFoundError) return undefined;
      throw error;
    }) : undefined;
    if (!file || !body) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'File not found', section: 'sources', back: `/account/w/${ctx.workspace.id}/sources/${encodeURIComponent(id)}`, backLabel: 'Back to the source',
        message: !file ? 'This source has no such attachment.' : file.storageKey || file.status === 'COMPLETE' ? 'This file is no longer stored.' : `This attachment has no file: ${(ATTACHMENT_STATUS[file.status] ?? file.status).toLowerCase()}.`,
      }, 404);
    }
    await sendDownload(res, body, { filename: file.filename ?? `attachment-${position + 1}`, mimeType: file.mimeType, size: file.size });
  }));

  /**
   * Deleting a source (issue 28): owners and admins, as for the workspace's other irreversible changes;
   * the form asks to confirm by a checkbox. The record it came from, its attachments and their files,
   * its signals and its share of opportunities go with it (libs/lifecycle).
   */
  router.post('/account/w/:ws/sources/:id/delete', form, inWorkspace(async (ctx, req, res) => {
    const id = String(req.params.id);
    if (!roleMay(ctx.workspace.role, 'deleteSource')) return showSource(ctx, id, '', res, { error: 'Only owners and admins can delete sources. Ask one of them.' }, 403);
    if (str(req.body.confirm) !== 'yes') return showSource(ctx, id, '', res, { error: 'Tick the box to confirm: a deleted source cannot be brought back.' }, 400);
    const out = await deleteEvidence({ pool: ctx.rt.pool, storage: deps.storage, clock: ctx.rt.clock, log: deps.log }, ctx.workspace.id, { sourceIds: [id] });
    if (!out.sources.length) return showSource(ctx, id, '', res, {}, 404);
    deps.log.info({ workspaceId: ctx.workspace.id, sourceId: id, userId: ctx.user.id, signals: out.signals, files: out.files }, 'source deleted on the account pages');
    res.redirect(303, `/account/w/${ctx.workspace.id}/sources?done=deleted`);
  }));

  async function showSource(ctx: InWorkspace, id: string, fromParam: string, res: Response, extra: Record<string, unknown> = {}, status = 200, query: Record<string, unknown> = {}) {
    const from = Math.max(0, Number.parseInt(fromParam, 10) || 0);
    const read = await readSource(ctx.rt.pool, ctx.workspace.id, id, { offset: from, limit: SEGMENTS_PAGE });
    if (!read) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'Source not found', section: 'sources', message: 'This source does not exist in this workspace.', back: `/account/w/${ctx.workspace.id}/sources`, backLabel: 'Back to sources',
      }, 404);
    }
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = products.find((p) => p.id === read.source.product_id);
    const participants = (Array.isArray(read.source.participants) ? read.source.participants : []).map((p) => {
      const o = (p && typeof p === 'object' ? p : {}) as Record<string, unknown>;
      const name = typeof o.name === 'string' ? o.name : undefined;
      const email = typeof o.email === 'string' ? o.email : undefined;
      const role = typeof o.role === 'string' ? o.role : undefined;
      return { name: name ?? email ?? (typeof o.id === 'string' ? o.id : 'Unnamed'), email: name ? email : undefined, role: role === 'internal' ? 'your team' : role === 'external' ? 'customer' : undefined };
    });
    const attachments = (await attachmentsOfSource(ctx.rt.pool, ctx.workspace.id, id)).map((a) => ({ ...a, statusLabel: ATTACHMENT_STATUS[a.status] ?? a.status }));
    const here = `/account/w/${ctx.workspace.id}/sources/${id}`;
    // A quote's link (issue 48) names the segment it was found in: that segment is highlighted.
    const quoted = /^\d{1,9}$/.test(str(query.quote)) ? Number(str(query.quote)) : undefined;
    renderAccount(res, 'account-source', ctx, {
      ...extra, manager: roleMay(ctx.workspace.role, 'deleteSource'), quoted,
      title: read.source.title, section: 'sources', read, source: { ...read.source, occurredAt: new Date(read.source.occurred_at) }, product,
      projects: product?.projects.filter((j) => read.source.project_ids.includes(j.id)) ?? [], participants, attachments,
      typeLabel: TYPE_LABELS[read.source.source_type] ?? read.source.source_type,
      nextLink: read.next_offset !== undefined ? `${here}?from=${read.next_offset}` : undefined,
      prevLink: from > SEGMENTS_PAGE ? `${here}?from=${from - SEGMENTS_PAGE}` : undefined, firstLink: from > 0 ? here : undefined,
    }, status);
  }

  return router;
}
