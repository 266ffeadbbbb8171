import express, { type ErrorRequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { SentenceEncoder } from './encoder';

/**
 * An OpenAI-compatible embeddings endpoint over a local sentence encoder, answering as OpenAI's API
 * reference documents `POST /v1/embeddings` (and `GET /v1/models`), so Loupe's EMBEDDINGS_URL can point at
 * it like at Ollama or TEI (docs/self-hosting/embeddings.md).
 */

/** Inputs per request at most (OpenAI's limit is 2,048). */
export const MAX_INPUTS = 2_048;
/**
 * Characters of a text the encoder reads: the rest is cut, as TEI's `--auto-truncate` does (a customer's
 * message says what it is about early on; the encoder's cost grows with the length).
 */
export const MAX_CHARS = 4_000;
/** Texts encoded at once: bounds the encoder's memory whatever a request holds. */
const ENCODE_SLICE = 64;

const body = z.object({
  input: z.union([z.string(), z.array(z.unknown())], { error: 'must be a text or a list of texts' }),
  model: z.string().min(1, 'must name the model'),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

function fail(res: Response, status: number, message: string, param: string | null, code: string | null) {
  res.status(status).json({ error: { message, type: 'invalid_request_error', param, code } });
}

/** A vector as OpenAI's `encoding_format: "base64"` gives it: little-endian float32, base64. */
function base64Of(vector: number[]): string {
  return Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}

/** What is wrong with `input` (a text, or a list of 1 to MAX_INPUTS texts, none empty), and where. */
function inputProblem(input: string | unknown[]): { param: string; message: string } | undefined {
  if (typeof input === 'string') return input.trim() === '' ? { param: 'input', message: 'an empty text has no embedding' } : undefined;
  if (input.length === 0) return { param: 'input', message: 'must hold at least one text' };
  if (input.length > MAX_INPUTS) return { param: 'input', message: `holds ${input.length} texts, at most ${MAX_INPUTS} are allowed: send them in several requests` };
  for (const [i, text] of input.entries()) {
    if (typeof text !== 'string') return { param: `input[${i}]`, message: `must be a text, not ${Array.isArray(text) ? 'a list (token ids are not accepted)' : typeof text}` };
    if (text.trim() === '') return { param: `input[${i}]`, message: 'an empty text has no embedding' };
  }
  return undefined;
}

export function createEmbeddingsApp(encoder: SentenceEncoder): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '20mb' }));
  // One encoding at a time: the encoder uses the whole core it runs on, and requests wait their turn in order.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, model: encoder.model });
  });

  app.get('/v1/models', (_req, res) => {
    res.json({ object: 'list', data: [{ id: encoder.model, object: 'model', created: 0, owned_by: 'loupe' }] });
  });

  app.post('/v1/embeddings', async (req, res, next) => {
    const parsed = body.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const param = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${String(p)}` : String(p))).join('') || null;
      fail(res, 400, `${param ?? 'body'}: ${issue.message}`, param, null);
      return;
    }
    const { model, dimensions, encoding_format: format = 'float' } = parsed.data;
    if (model !== encoder.model) {
      fail(res, 404, `The model \`${model}\` does not exist: this server serves \`${encoder.model}\`.`, 'model', 'model_not_found');
      return;
    }
    if (dimensions !== undefined && dimensions !== encoder.dims) {
      fail(res, 400, `dimensions: ${encoder.model} gives ${encoder.dims} dimensions and cannot shorten them.`, 'dimensions', null);
      return;
    }
    const problem = inputProblem(parsed.data.input);
    if (problem) {
      fail(res, 400, `${problem.param}: ${problem.message}`, problem.param, null);
      return;
    }
    const input = typeof parsed.data.input === 'string' ? [parsed.data.input] : (parsed.data.input as string[]);
    try {
      const texts = input.map((text) => text.slice(0, MAX_CHARS));
      const vectors = await serially(async () => {
        const out: number[][] = [];
        for (let at = 0; at < texts.length; at += ENCODE_SLICE) out.push(...(await encoder.embed(texts.slice(at, at + ENCODE_SLICE))));
        return out;
      });
      const tokens = texts.reduce((sum, text) => sum + encoder.tokens(text), 0);
      res.json({
        object: 'list',
        data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? base64Of(vector) : vector })),
        model: encoder.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (error) {
      next(error);
    }
  });

  app.use((_req, res) => fail(res, 404, 'Not found: this server answers POST /v1/embeddings and GET /v1/models.', null, null));
  const errors: ErrorRequestHandler = (error: { type?: string; status?: number; message?: string }, _req, res, _next) => {
    if (error.type === 'entity.parse.failed') return fail(res, 400, `The body is not valid JSON: ${error.message}`, null, null);
    if (error.type === 'entity.too.large') return fail(res, 413, 'The body is larger than 20 MB: send fewer texts per request.', null, null);
    if (error.status && error.status < 500) return fail(res, error.status, error.message ?? 'Bad request', null, null);
    res.status(500).json({ error: { message: `The encoder failed: ${error.message ?? String(error)}`, type: 'server_error', param: null, code: null } });
  };
  app.use(errors);
  return app;
}
