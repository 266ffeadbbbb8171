import { Router, type Response } from 'express';
import {
  checkCitations, getShapingNote, getVersion, listShapingNotes, listVersions, restoreVersion, SHAPING_STATUSES, ShapingError, ShapingNoteNotFoundError, shapingStatusDisplayName,
  ShapingVersionNotFoundError, updateShapingNote, type ShapingStatus,
} from '@loupe/shaping';
import { listProducts } from '@loupe/workspaces';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';
import { renderMarkdown } from './markdown';
import { diffText, TEXT_DIFF_LIMITS } from './text-diff';
import { pageOf } from './opportunities';

export const NOTES_PAGE = 25;

/** Lines of a text as the diff counts them (a last newline ends the last line). */
function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

const DONE: Record<string, string> = {
  status: 'Status changed.',
  restored: 'Restored: that version is the current one again (as a new version; the history keeps every one).',
  unchanged: 'Nothing changed: the note already was in that state.',
};

/**
 * Shaping notes (issue 27): a product's notes by status, one note rendered from its markdown (sanitised:
 * see markdown.ts), its versions, the diff between two of them, restoring one, changing the status.
 */
export function notePages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);
  const base = (ctx: InWorkspace) => `/account/w/${ctx.workspace.id}/notes`;
  const statusName = (s: ShapingStatus | null) => shapingStatusDisplayName(s) ?? 'Outside the pipeline';
  const authors = async (ctx: InWorkspace) => new Map((await ctx.rt.accounts.listMembers(ctx.workspace.id)).map((m) => [m.userId, m.email]));
  const missing = (ctx: InWorkspace, res: Response, message = 'This shaping note does not exist in this workspace.') =>
    renderAccount(res, 'account-missing', ctx, { title: 'Shaping note not found', section: 'notes', message, back: base(ctx), backLabel: 'Back to shaping notes' }, 404);

  router.get('/account/w/:ws/notes', inWorkspace(async (ctx, req, res) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = products.find((p) => p.id === str(req.query.product)) ?? products[0];
    const status = str(req.query.status);
    const known = status === 'none' || SHAPING_STATUSES.some((s) => s.status === status);
    const page = pageOf(req.query.page);
    const list = product
      ? await listShapingNotes(ctx.rt.pool, ctx.workspace.id, {
        productId: product.id, ...(known ? { status: status === 'none' ? null : status } : {}), limit: NOTES_PAGE, offset: (page - 1) * NOTES_PAGE,
      })
      : { items: [], total: 0 };
    const last = Math.max(1, Math.ceil(list.total / NOTES_PAGE));
    const link = (n: number) => `${base(ctx)}?${new URLSearchParams({ product: product?.id ?? '', ...(known ? { status } : {}), page: String(n) })}`;
    renderAccount(res, 'account-notes', ctx, {
      title: 'Shaping notes', section: 'notes', products, product, statuses: SHAPING_STATUSES, status: known ? status : '', list, page,
      notes: list.items.map((n) => ({ ...n, statusName: statusName(n.status) })),
      prevLink: page > 1 ? link(page - 1) : undefined, nextLink: page < last ? link(page + 1) : undefined,
    });
  }));

  const showNote = async (ctx: InWorkspace, id: string, res: Response, version: number | undefined, extra: Record<string, unknown> = {}, status = 200) => {
    try {
      const note = await getShapingNote(ctx.rt.pool, ctx.workspace.id, id);
      const versions = await listVersions(ctx.rt.pool, ctx.workspace.id, id);
      const shown = version === undefined || version === note.version ? undefined : await getVersion(ctx.rt.pool, ctx.workspace.id, id, version);
      const text = shown ?? note;
      const who = await authors(ctx);
      const products = await listProducts(deps.db, ctx.workspace.id);
      renderAccount(res, 'account-note', ctx, {
        title: text.title, section: 'notes', note, shown, text, html: renderMarkdown(text.content), statusName: statusName(text.status), statuses: SHAPING_STATUSES,
        citations: await checkCitations(ctx.rt.pool, ctx.workspace.id, text.content),
        product: products.find((p) => p.id === note.productId),
        versions: versions.reverse().map((v) => ({ ...v, statusName: statusName(v.status), by: v.createdByUserId ? who.get(v.createdByUserId) ?? 'someone no longer a member' : 'an API key or application' })),
        ...extra,
      }, status);
    } catch (error) {
      if (error instanceof ShapingNoteNotFoundError) return missing(ctx, res);
      if (error instanceof ShapingVersionNotFoundError) return missing(ctx, res, `This note has no version ${version}.`);
      throw error;
    }
  };

  router.get('/account/w/:ws/notes/:id', inWorkspace((ctx, req, res) => showNote(ctx, String(req.params.id), res, undefined, { done: DONE[str(req.query.done)] })));
  router.get('/account/w/:ws/notes/:id/versions/:version', inWorkspace(async (ctx, req, res) => {
    const version = Number.parseInt(String(req.params.version), 10);
    if (!Number.isInteger(version) || version < 1) return missing(ctx, res, 'There is no such version.');
    return showNote(ctx, String(req.params.id), res, version);
  }));

  router.get('/account/w/:ws/notes/:id/diff', inWorkspace(async (ctx, req, res) => {
    const id = String(req.params.id);
    try {
      const note = await getShapingNote(ctx.rt.pool, ctx.workspace.id, id);
      const from = Math.max(1, Number.parseInt(str(req.query.from), 10) || Math.max(1, note.version - 1));
      const to = Math.max(1, Number.parseInt(str(req.query.to), 10) || note.version);
      const [a, b] = await Promise.all([getVersion(ctx.rt.pool, ctx.workspace.id, id, from), getVersion(ctx.rt.pool, ctx.workspace.id, id, to)]);
      const fields = [
        ['Title', a.title, b.title], ['Subtitle', a.subtitle ?? '', b.subtitle ?? ''], ['Status', statusName(a.status), statusName(b.status)], ['Tags', a.tags.join(', '), b.tags.join(', ')],
      ].filter(([, x, y]) => x !== y).map(([name, before, after]) => ({ name, before, after }));
      // Off the event loop and bounded (text-diff.ts): two versions that share little are too different to list.
      const compared = await diffText(a.content, b.content);
      const read = (v: number) => `${base(ctx)}/${id}${v === note.version ? '' : `/versions/${v}`}`;
      renderAccount(res, 'account-note-diff', ctx, {
        title: `Changes to ${note.title}`, section: 'notes', note, a, b, fields,
        lines: 'lines' in compared ? compared.lines : undefined,
        tooDifferent: 'tooDifferent' in compared ? compared.tooDifferent : undefined,
        maxChangedLines: TEXT_DIFF_LIMITS.maxChangedLines,
        sizes: [a, b].map((v) => ({ version: v.version, kb: Math.max(1, Math.ceil(Buffer.byteLength(v.content) / 1024)), lines: lineCount(v.content), link: read(v.version) })),
        readA: read(a.version), readB: read(b.version),
        versions: (await listVersions(ctx.rt.pool, ctx.workspace.id, id)).map((v) => v.version),
      });
    } catch (error) {
      if (error instanceof ShapingNoteNotFoundError) return missing(ctx, res);
      if (error instanceof ShapingVersionNotFoundError) return missing(ctx, res, 'One of those versions does not exist: choose two from the note\'s history.');
      throw error;
    }
  }));

  const write = (work: (ctx: InWorkspace, id: string, body: Record<string, unknown>) => Promise<{ unchanged: boolean }>, done: string) =>
    inWorkspace(async (ctx, req, res) => {
      const id = String(req.params.id);
      try {
        const out = await work(ctx, id, req.body as Record<string, unknown>);
        res.redirect(303, `${base(ctx)}/${id}?done=${out.unchanged ? 'unchanged' : done}`);
      } catch (error) {
        if (error instanceof ShapingNoteNotFoundError) return missing(ctx, res);
        if (error instanceof ShapingError) return showNote(ctx, id, res, undefined, { error: `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.` }, 400);
        throw error;
      }
    });

  router.post('/account/w/:ws/notes/:id/status', form, write((ctx, id, body) =>
    updateShapingNote(ctx.rt.pool, { workspaceId: ctx.workspace.id, noteId: id, status: str(body.status) === 'none' ? null : str(body.status), updatedByUserId: ctx.user.id }, ctx.rt.clock), 'status'));
  router.post('/account/w/:ws/notes/:id/restore', form, write((ctx, id, body) =>
    restoreVersion(ctx.rt.pool, { workspaceId: ctx.workspace.id, noteId: id, version: Number.parseInt(str(body.version), 10), restoredByUserId: ctx.user.id }, ctx.rt.clock), 'restored'));

  return router;
}
