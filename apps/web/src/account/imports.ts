import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { canManage } from '@loupe/accounts';
import { newId } from '@loupe/db';
import {
  cellOf, columnsOf, createFileImport, discardDraft, DATA_AS, deleteMapping, FileReadError, findMapping, formatOf, formOfMapping, getFileImport, guessForm, importStorageKey, listFileImports,
  listMappings, MappingError, mappingOfForm, MAX_MAPPING_NAME, PERSON_ROLES, previewFile, readRows, saveMapping, setImportMapping, startFileImport, whereText,
  type FileImport, type MappingForm, type MappedRow,
} from '@loupe/file-import';
import { RECORD_TYPES } from '@loupe/records';
import { StorageNotFoundError, StorageTooLargeError } from '@loupe/storage';
import { listProducts } from '@loupe/workspaces';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

/** Columns the mapping form shows (a file with more maps the rest with the CLI). */
export const MAX_FORM_COLUMNS = 300;
/** The mapping form: two fields per column beside the record fields. */
const mappingBody = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 2 * MAX_FORM_COLUMNS + 40 });

/** The largest file the console takes (the CLI has no limit: it streams from the disk). */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

interface Upload {
  name: string;
  stream: Readable;
  /** Past the size cap: busboy stopped reading it. */
  truncated: boolean;
  /** The upload was cut short or malformed. */
  error?: Error;
}

declare module 'express-serve-static-core' {
  interface Request {
    upload?: Upload;
  }
}

/**
 * A multipart upload read as a stream: the form's `_csrf` field (first in the form) goes to `req.body` for the
 * CSRF check, and the file, not read yet, to `req.upload` for the handler to stream into storage. The file is
 * never held in memory; a second file or field past the first few is not read.
 */
const multipartUpload = (maxBytes: number) => function multipartUpload(req: Request, res: Response, next: NextFunction) {
  if (!req.is('multipart/form-data')) {
    req.body = {};
    return next();
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { files: 1, fields: 4, fieldSize: 1024, fileSize: maxBytes + 1, parts: 6 } });
  } catch {
    req.body = {};
    return next();
  }
  const body: Record<string, string> = {};
  let handed = false;
  const hand = () => {
    if (handed) return;
    handed = true;
    req.body = body;
    next();
  };
  bb.on('field', (name, value) => {
    if (!handed) body[name] = value;
  });
  bb.on('file', (_name, stream, info) => {
    if (handed) return void stream.resume();
    const upload: Upload = { name: info.filename ?? '', stream, truncated: false };
    // Listened to at once: the stream may fail before the handler has the workspace.
    stream.on('limit', () => (upload.truncated = true));
    stream.on('error', (error: Error) => (upload.error = error));
    req.upload = upload;
    hand();
  });
  bb.on('close', hand);
  bb.on('error', () => hand());
  res.on('close', () => {
    req.unpipe(bb);
    req.upload?.stream.resume();
  });
  req.pipe(bb);
};

/** 470 bytes, 12.3 KB, 256 MB. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const one = (n: number) => n.toFixed(1).replace(/\.0$/, '');
  if (bytes < 1024 * 1024) return `${one(bytes / 1024)} KB`;
  return `${one(bytes / 1024 / 1024)} MB`;
}

/** For the one select the mapping page builds as a string (one per record field, from the file's columns). */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the preview shows of a mapped row: its place, its problems, or the record's main fields. */
function previewRow(r: MappedRow) {
  const rec = r.record as { _type?: string; _event_at?: string; _vendor_ids?: Record<string, string>; _participants?: Array<{ name?: string; email?: string; id: string }>; data?: Record<string, unknown> } | undefined;
  const data = rec?.data ?? {};
  const text = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const title = text(data.title ?? data.subject);
  const main = text(data.text ?? data.body ?? data.markdown ?? Object.values(data).find((v) => typeof v === 'string' && v !== title));
  const person = rec?._participants?.[0];
  return {
    where: whereText(r.where), ok: !r.problems.length, problems: r.problems,
    id: Object.values(rec?._vendor_ids ?? {})[0] ?? '', eventAt: rec?._event_at ?? '', type: rec?._type ?? '',
    title: title.slice(0, 120), text: main.length > 200 ? `${main.slice(0, 200)}…` : main, person: person ? person.name ?? person.email ?? person.id : '',
    others: Object.keys(data).filter((k) => !['title', 'subject', 'text', 'body', 'markdown'].includes(k)).length,
  };
}

/** The mapping form as posted: each record field's column, and for each column of the file its data key. */
function formOfBody(body: Record<string, unknown>, columns: string[]): MappingForm {
  const s = (k: string) => str(body[k]).trim();
  const role = s('personRole');
  return {
    type: s('type'), eventAtColumn: s('eventAtColumn'), eventAtFormat: s('eventAtFormat'), idColumn: s('idColumn'), idSystem: s('idSystem'),
    threadColumn: s('threadColumn'), personNameColumn: s('personNameColumn'), personEmailColumn: s('personEmailColumn'),
    teamNameColumn: s('teamNameColumn'), teamEmailColumn: s('teamEmailColumn'),
    personRole: (PERSON_ROLES as readonly string[]).includes(role) ? (role as MappingForm['personRole']) : 'external',
    tagsColumn: s('tagsColumn'), tagsSeparator: str(body.tagsSeparator) || ',',
    data: columns.map((column, i) => {
      const as = s(`as${i}`);
      return { column, key: s(`key${i}`), as: (DATA_AS as readonly string[]).includes(as) ? (as as MappingForm['data'][number]['as']) : 'text' };
    }),
  };
}

/** Columns a posted form may name: the file's, else nothing (a column not in the file would map to nothing). */
function unknownColumns(f: MappingForm, columns: string[]): string[] {
  const named = [f.eventAtColumn, f.idColumn, f.threadColumn, f.personNameColumn, f.personEmailColumn, f.teamNameColumn, f.teamEmailColumn, f.tagsColumn].filter(Boolean);
  return [...new Set(named.filter((c) => !columns.includes(c)))];
}

/**
 * File import in the browser (issue 45): upload a CSV, JSON or NDJSON export (streamed into storage), map its
 * columns to record fields (or take a saved mapping; save this one), preview the first 20 records with their
 * problems, then import it in the background (the worker's `file.import` job) and watch its progress. Every member
 * of the workspace may import, as every member may create a key that writes records; deleting a saved mapping is
 * for owners, admins and whoever saved it.
 */
export function importPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);
  const base = (ctx: InWorkspace) => `/account/w/${ctx.workspace.id}/import`;
  const maxBytes = deps.importMaxBytes ?? MAX_UPLOAD_BYTES;
  const maxText = sizeText(maxBytes);

  const showList = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const [imports, mappings] = await Promise.all([listFileImports(ctx.rt.pool, ctx.workspace.id), listMappings(ctx.rt.pool, ctx.workspace.id)]);
    renderAccount(res, 'account-import', ctx, {
      title: 'File import', section: 'import', imports, mappings, maxSize: maxText, manager: canManage(ctx.workspace.role), userId: ctx.user.id, ...extra,
    }, status);
  };

  router.get('/account/w/:ws/import', inWorkspace((ctx, req, res) => showList(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/import', multipartUpload(maxBytes), inWorkspace(async (ctx, req, res) => {
    const upload = req.upload;
    if (!upload || !upload.name) {
      upload?.stream.resume();
      return showList(ctx, res, { error: 'Choose a file to import: a CSV, JSON or NDJSON export.' }, 400);
    }
    const other = /\.(xlsx|xlsm|xls|ods|numbers|pdf|zip|docx?)$/i.exec(upload.name)?.[1];
    if (other) {
      upload.stream.resume();
      return showList(ctx, res, { error: `"${upload.name}" is a .${other.toLowerCase()} file: the console reads CSV, JSON and NDJSON. Export it as CSV (in a spreadsheet: File › Save as or Download › CSV) and upload that.` }, 415);
    }
    if (!deps.boss) {
      upload.stream.resume();
      return showList(ctx, res, { error: 'Importing is not available here: this server has no job queue.' }, 503);
    }
    const id = newId('imp');
    const key = importStorageKey(ctx.workspace.id, id);
    const cutShort = () => showList(ctx, res, { error: `"${upload.name}" did not arrive whole (${upload.error?.message}): upload it again.` }, 400);
    if (upload.error) return cutShort();
    let size: number;
    try {
      size = (await deps.storage.put(key, upload.stream, {
        maxBytes,
        verify: () => {
          if (upload.truncated) throw new StorageTooLargeError(key, maxBytes);
          if (upload.error) throw upload.error;
        },
      })).size;
    } catch (error) {
      upload.stream.resume();
      if (error instanceof StorageTooLargeError) return showList(ctx, res, { error: `"${upload.name}" is larger than ${maxText}, the most the console takes: split it, or import it with the CLI (npm run loupe -- import), which has no limit.` }, 413);
      // The browser's upload was cut short or malformed: nothing was kept.
      if (upload.error) return cutShort();
      throw error;
    }
    if (!size) {
      await deps.storage.delete(key);
      return showList(ctx, res, { error: `"${upload.name}" is empty.` }, 400);
    }
    const open = () => deps.storage.get(key);
    const format = await formatOf(open, upload.name);
    await createFileImport(ctx.rt.pool, { id, workspaceId: ctx.workspace.id, fileName: upload.name, storageKey: key, sizeBytes: size, format, createdBy: ctx.user.id }, new Date(ctx.rt.clock.now()));
    res.redirect(303, `${base(ctx)}/${id}`);
  }));

  /** The import's page: the mapping and preview while it is a draft, its progress once started. */
  const showImport = async (ctx: InWorkspace, req: Request, res: Response, job: FileImport, extra: Record<string, unknown> = {}, status = 200) => {
    if (job.status !== 'draft') {
      const running = job.status === 'queued' || job.status === 'running';
      return renderAccount(res, 'account-import-run', ctx, {
        title: `Import of ${job.fileName}`, section: 'import', job, running, size: sizeText,
        percent: job.sizeBytes ? Math.min(100, Math.floor((job.bytesRead / job.sizeBytes) * 100)) : 100, ...extra,
      }, status);
    }
    const open = () => deps.storage.get(job.storageKey);
    let columns: string[] = [];
    let sample: Record<string, string> = {};
    let readError: string | undefined;
    try {
      columns = (await columnsOf(open, { format: job.format })).slice(0, MAX_FORM_COLUMNS);
      sample = await sampleOf(open, job, columns);
    } catch (error) {
      if (error instanceof StorageNotFoundError) readError = 'The uploaded file is no longer kept (uploads never imported are deleted after a week): upload it again.';
      else if (error instanceof FileReadError) readError = error.message;
      else throw error;
    }
    const products = await listProducts(deps.db, ctx.workspace.id);
    const mappings = await listMappings(ctx.rt.pool, ctx.workspace.id);
    const chosen = str(req.query.mapping) ? mappings.find((m) => m.id === str(req.query.mapping)) : undefined;
    let mappingForm: MappingForm;
    let complete = true;
    let productId = job.productId ?? '';
    let projectId = job.projectId ?? '';
    const shown = (extra.form as MappingForm | undefined) ?? undefined;
    if (shown) mappingForm = shown;
    else if (chosen) {
      ({ form: mappingForm, complete } = formOfMapping(chosen.mapping, columns));
      productId = chosen.mapping.product_id ?? productId;
      projectId = chosen.mapping.project_ids?.[0] ?? projectId;
    } else if (job.mapping) ({ form: mappingForm, complete } = formOfMapping(job.mapping, columns));
    else mappingForm = guessForm(columns);
    if (extra.productId !== undefined) productId = String(extra.productId);
    if (extra.projectId !== undefined) projectId = String(extra.projectId);
    if (!productId && products.length === 1) productId = products[0]!.id;
    if (!projectId) projectId = products.find((p) => p.id === productId)?.projects[0]?.id ?? '';
    const preview = job.mapping && !shown && !chosen && !readError
      ? (await previewFile(open, job.mapping, { productId: job.productId ?? undefined, projectIds: job.projectId ? [job.projectId] : undefined }, undefined, { format: job.format })).map(previewRow)
      : undefined;
    renderAccount(res, 'account-import-map', ctx, {
      title: `Map the columns of ${job.fileName}`, section: 'import', job, columns, sample, readError, products, productId, projectId, mappings, chosen, complete,
      form: mappingForm, types: RECORD_TYPES, dataAs: DATA_AS, roles: PERSON_ROLES, preview, validCount: preview?.filter((p) => p.ok).length ?? 0,
      maxName: MAX_MAPPING_NAME, size: sizeText, done: str(req.query.done), e: escapeHtml, ...extra,
    }, status);
  };

  /** The first row's cells by column, to show beside each column of the form. */
  async function sampleOf(open: () => Promise<Readable>, job: FileImport, columns: string[]): Promise<Record<string, string>> {
    for await (const r of readRows(open, { format: job.format })) {
      if (!r.row) continue;
      const row = r.row;
      return Object.fromEntries(columns.map((c) => {
        const v = cellOf(row, c) ?? '';
        return [c, v.length > 60 ? `${v.slice(0, 60)}…` : v];
      }));
    }
    return {};
  }

  const withImport = (fn: (ctx: InWorkspace, req: Request, res: Response, job: FileImport) => Promise<unknown>) => inWorkspace(async (ctx, req, res) => {
    const job = await getFileImport(ctx.rt.pool, ctx.workspace.id, String(req.params.id));
    if (!job) return showList(ctx, res, { error: 'That import does not exist in this workspace.' }, 404);
    return fn(ctx, req, res, job);
  });

  router.get('/account/w/:ws/import/:id', withImport((ctx, req, res, job) => showImport(ctx, req, res, job)));

  // The mapping form: checked, stored on the import (and saved under a name when asked), then the preview.
  router.post('/account/w/:ws/import/:id/mapping', mappingBody, withImport(async (ctx, req, res, job) => {
    if (job.status !== 'draft') return showImport(ctx, req, res, job, { error: 'This import has started: its mapping cannot change. Upload the file again to import it with another mapping.' }, 409);
    const body = req.body as Record<string, unknown>;
    const columns = (await columnsOf(() => deps.storage.get(job.storageKey), { format: job.format }).catch(() => [] as string[])).slice(0, MAX_FORM_COLUMNS);
    const posted = formOfBody(body, columns);
    const productId = str(body.productId);
    const projectId = str(body.projectId);
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = products.find((p) => p.id === productId);
    const problems: string[] = [];
    const strange = unknownColumns(posted, columns);
    if (strange.length) problems.push(`Columns: ${strange.map((c) => `"${c}"`).join(', ')} ${strange.length > 1 ? 'are' : 'is'} not a column of this file`);
    if (productId && !product) problems.push('Product: that product does not exist in this workspace');
    else if (projectId && product && !product.projects.some((p) => p.id === projectId)) problems.push(`Project: choose a project of ${product.name}`);
    const { mapping, problems: formProblems } = mappingOfForm(posted, { productId, projectId });
    problems.push(...formProblems);
    const saveAs = str(body.saveAs).trim();
    if (!mapping || problems.length) return showImport(ctx, req, res, job, { form: posted, productId, projectId, problems, saveAs }, 400);
    if (saveAs) {
      try {
        await saveMapping(ctx.rt.pool, ctx.workspace.id, { name: saveAs, mapping, userId: ctx.user.id }, new Date(ctx.rt.clock.now()));
      } catch (error) {
        if (!(error instanceof MappingError)) throw error;
        return showImport(ctx, req, res, job, { form: posted, productId, projectId, problems: error.problems.map((p) => p.replace(/^name: /, 'Save as: ')), saveAs }, 400);
      }
    }
    await setImportMapping(ctx.rt.pool, ctx.workspace.id, job.id, { mapping, productId, projectId }, new Date(ctx.rt.clock.now()));
    res.redirect(303, `${base(ctx)}/${job.id}?done=${saveAs ? 'saved' : 'previewed'}#preview`);
  }));

  router.post('/account/w/:ws/import/:id/start', form, withImport(async (ctx, req, res, job) => {
    if (job.status !== 'draft') return res.redirect(303, `${base(ctx)}/${job.id}`);
    if (!job.mapping) return showImport(ctx, req, res, job, { error: 'Map the columns and preview the records first.' }, 409);
    if (!deps.boss) return showImport(ctx, req, res, job, { error: 'Importing is not available here: this server has no job queue.' }, 503);
    await startFileImport(ctx.rt.pool, deps.boss, ctx.workspace.id, job.id, new Date(ctx.rt.clock.now()));
    res.redirect(303, `${base(ctx)}/${job.id}`);
  }));

  // A draft's "Discard": the uploaded file deleted with it (drafts left alone go after a week, libs/file-import).
  router.post('/account/w/:ws/import/:id/discard', form, withImport(async (ctx, req, res, job) => {
    if (job.status !== 'draft') return showImport(ctx, req, res, job, { error: 'This import has started: it cannot be discarded.' }, 409);
    await discardDraft(ctx.rt.pool, deps.storage, ctx.workspace.id, job.id);
    res.redirect(303, `${base(ctx)}?done=discarded`);
  }));

  router.post('/account/w/:ws/import/mappings/:mid/delete', form, inWorkspace(async (ctx, req, res) => {
    const mapping = await findMapping(ctx.rt.pool, ctx.workspace.id, String(req.params.mid)).catch(() => undefined);
    if (!mapping || mapping.id !== req.params.mid) return showList(ctx, res, { error: 'That saved mapping does not exist (any more).' }, 404);
    if (!canManage(ctx.workspace.role) && mapping.createdBy !== ctx.user.id) {
      return showList(ctx, res, { error: 'Only owners, admins and the person who saved a mapping can delete it.' }, 403);
    }
    await deleteMapping(ctx.rt.pool, ctx.workspace.id, mapping.id);
    res.redirect(303, `${base(ctx)}?done=deleted`);
  }));

  return router;
}
