import { parseArgs } from 'node:util';
import { createIngestClient, IngestApiError } from '@loupe/ingest-client';
import { progressLine, rejectedFileOf, stateFileOf, uploadFile } from './upload';

export const USAGE = `Usage: npm run loupe -- <command> [options]

  upload <file>        send every record of a JSON array, {"records": [...]} or NDJSON file, any size,
                       with a progress bar; run it again after an interrupt to resume (nothing is sent twice)
  batches watch <id>   follow a batch until it is COMPLETE or FAILED, with its attachment downloads

Options: --url <base url> (or LOUPE_URL; default http://localhost:8080)
         --key <api key>  (or LOUPE_API_KEY; never printed)`;

/** The `loupe` command-line client of the ingestion API. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { url: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`Error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const apiKey = parsed.values.key ?? process.env.LOUPE_API_KEY;
  if (!apiKey) {
    console.error('Error: no API key. Set LOUPE_API_KEY or pass --key.');
    return 2;
  }
  const client = createIngestClient({ baseUrl: parsed.values.url ?? process.env.LOUPE_URL ?? 'http://localhost:8080', apiKey });
  try {
    if (command === 'upload' && rest.length === 1) {
      const file = rest[0]!;
      const stop = new AbortController();
      process.once('SIGINT', () => {
        process.stderr.write('\nStopping after the request in flight; run the same command again to resume.\n');
        stop.abort();
      });
      const tty = process.stderr.isTTY;
      let last = 0;
      const done = await uploadFile(client, file, (p) => {
        if (tty) process.stderr.write(`\r${progressLine(p)}\x1b[K`);
        else if (Date.now() - last > 1000) {
          last = Date.now();
          process.stderr.write(`${progressLine(p)}\n`);
        }
      }, stop.signal);
      process.stderr.write(`${tty ? '\r' : ''}${progressLine(done)}\x1b[K\n`);
      if (stop.signal.aborted) {
        console.log(`Interrupted after ${done.done.toLocaleString('en-US')} records; progress is in ${stateFileOf(file)}.`);
        return 130;
      }
      console.log(`Done: ${done.done.toLocaleString('en-US')} records in ${done.batches} requests; ${done.accepted} accepted, ${done.rejected} rejected, ${done.duplicates} duplicates.`);
      if (done.rejected) console.log(`Rejected records with their index and reason: ${rejectedFileOf(file)}`);
      return 0;
    }
    if (command === 'batches' && rest[0] === 'watch' && rest.length === 2) {
      const batch = await client.waitUntilComplete(rest[1]!, {
        intervalMs: 1000,
        timeoutMs: 24 * 3600_000,
        onProgress: (b) => {
          const downloads = b.attachmentDownloadTotal
            ? ` · downloads ${b.attachmentDownloadComplete ?? 0}/${b.attachmentDownloadTotal} (${b.attachmentDownloadFailed ?? 0} failed, ${b.attachmentDownloadStatus})`
            : '';
          process.stderr.write(`${b.status} · ${b.acceptedCount} accepted · ${b.billing.totalCreditsCharged} credits${downloads}\n`);
        },
      });
      console.log(`${batch.batchId}: ${batch.status}`);
      return batch.status === 'COMPLETE' ? 0 : 1;
    }
    console.error(`Error: unknown command "${[command, ...rest].join(' ')}"\n\n${USAGE}`);
    return 2;
  } catch (error) {
    if (error instanceof IngestApiError) {
      console.error(`Error: the API answered ${error.message}`);
      for (const e of error.recordErrors.slice(0, 5)) console.error(`  record ${e.index}: ${e.message}`);
      return 1;
    }
    console.error(`Error: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
