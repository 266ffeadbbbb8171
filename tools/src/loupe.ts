import { createIngestClient, IngestApiError } from '@loupe/ingest-client';
import { DEFAULT_LOUPE_URL, LOUPE_CLI } from './cli/loupe-commands';
import { parseCommandLine, textOption, USAGE_EXIT_CODE } from './cli/program';
import { helpPointer } from './cli/spec';
import { CSV_FIELDS, directoryProgressLine, rejectedFileOf as rejectedRowsOf, uploadDirectoryFile, type DirectoryKind } from './crm-upload';
import { runImportCommand } from './file-import/import-command';
import { progressLine, rejectedFileOf, stateFileOf, uploadFile } from './upload';

/** The `loupe` command-line client of the ingestion API. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(LOUPE_CLI, argv);
  if (parsed.kind === 'exit') {
    process.stdout.write(parsed.out);
    process.stderr.write(parsed.err);
    return parsed.code;
  }
  const { command, options, args } = parsed;
  const baseUrl = textOption(options, 'url') ?? process.env.LOUPE_URL ?? DEFAULT_LOUPE_URL;
  if (command === 'import') {
    const dryRun = options['dry-run'] === true;
    const apiKey = textOption(options, 'key') ?? process.env.LOUPE_API_KEY;
    if (!dryRun && !apiKey) {
      console.error(`error: no API key. Set LOUPE_API_KEY or pass --key.\n${helpPointer(LOUPE_CLI, command)}`);
      return USAGE_EXIT_CODE;
    }
    const project = options.project;
    const stop = new AbortController();
    const onInterrupt = () => {
      process.stderr.write('\nStopping after the request in flight; run the same command again to finish (nothing is stored twice).\n');
      stop.abort();
    };
    process.once('SIGINT', onInterrupt);
    try {
      return await runImportCommand({
        file: args[0]!, mappingFile: textOption(options, 'mapping')!, dryRun, signal: stop.signal,
        defaults: { productId: textOption(options, 'product'), projectIds: Array.isArray(project) ? project : undefined, type: textOption(options, 'type') },
      }, () => createIngestClient({ baseUrl, apiKey: apiKey! }), { out: (line) => console.log(line), err: (text) => process.stderr.write(text), now: Date.now });
    } catch (error) {
      console.error(`error: ${error instanceof IngestApiError ? `the API answered ${error.message}` : (error as Error).message}`);
      return 1;
    } finally {
      process.off('SIGINT', onInterrupt);
    }
  }
  const apiKey = textOption(options, 'key') ?? process.env.LOUPE_API_KEY;
  if (!apiKey) {
    console.error(`error: no API key. Set LOUPE_API_KEY or pass --key.\n${helpPointer(LOUPE_CLI, command)}`);
    return USAGE_EXIT_CODE;
  }
  const client = createIngestClient({ baseUrl, apiKey });
  try {
    if (command === 'upload') {
      const file = args[0]!;
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
    if (command === 'companies upload' || command === 'people upload') {
      const kind: DirectoryKind = command === 'companies upload' ? 'companies' : 'people';
      const file = args[0]!;
      const stop = new AbortController();
      process.once('SIGINT', () => {
        process.stderr.write('\nStopping after the request in flight; every request answered is stored (run the file again: upserts store the same).\n');
        stop.abort();
      });
      const tty = process.stderr.isTTY;
      let last = 0;
      const done = await uploadDirectoryFile(client, kind, file, (p) => {
        if (tty) process.stderr.write(`\r${directoryProgressLine(p)}\x1b[K`);
        else if (Date.now() - last > 1000) {
          last = Date.now();
          process.stderr.write(`${directoryProgressLine(p)}\n`);
        }
      }, {
        signal: stop.signal,
        onColumns: (columns) => {
          const ignored = columns.filter((c) => !CSV_FIELDS[kind].includes(c) && !c.startsWith('attributes.'));
          if (ignored.length) {
            process.stderr.write(`Ignoring column${ignored.length > 1 ? 's' : ''} ${ignored.map((c) => JSON.stringify(c)).join(', ')}: ` +
              `the fields are ${CSV_FIELDS[kind].join(', ')} and attributes.<name>\n`);
          }
        },
      });
      process.stderr.write(`${tty ? '\r' : ''}${directoryProgressLine(done)}\x1b[K\n`);
      const n = (x: number) => x.toLocaleString('en-US');
      console.log(`${stop.signal.aborted ? 'Interrupted' : 'Done'}: ${n(done.sent)} ${kind} read; ${n(done.created)} created, ${n(done.updated)} updated, ${n(done.rejected)} rejected.`);
      if (done.rejected) console.log(`Rejected rows with their line and reason: ${rejectedRowsOf(file)}`);
      return stop.signal.aborted ? 130 : 0;
    }
    const batch = await client.waitUntilComplete(args[0]!, {
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
  } catch (error) {
    if (error instanceof IngestApiError) {
      console.error(`error: the API answered ${error.message}`);
      for (const e of error.recordErrors.slice(0, 5)) console.error(`  record ${e.index}: ${e.message}`);
      return 1;
    }
    console.error(`error: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
