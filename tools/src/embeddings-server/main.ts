import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { createEmbeddingsApp } from './app';
import { loadUseLite } from './encoder';

/**
 * `npm run embeddings:serve [-- --port 8090 --host 127.0.0.1]`: Universal Sentence Encoder lite behind an
 * OpenAI-compatible `/v1/embeddings`, for EMBEDDINGS_URL (docs/self-hosting/embeddings.md).
 */
const { values } = parseArgs({ options: { port: { type: 'string', default: '8090' }, host: { type: 'string', default: '127.0.0.1' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port: ${values.port} is not a port number (0–65535)`);
  process.exit(2);
}
const encoder = await loadUseLite();
const server = createEmbeddingsApp(encoder).listen(port, values.host);
await once(server, 'listening');
const address = server.address();
const url = `http://${values.host}:${typeof address === 'object' && address ? address.port : port}/v1`;
console.log(`Embeddings server ready (${encoder.model}, ${encoder.dims} dimensions). Start Loupe with:\n  EMBEDDINGS_URL=${url} EMBEDDINGS_MODEL=${encoder.model}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
