import { readFile } from 'node:fs/promises';
import type { IngestClient } from '@loupe/ingest-client';
import { mappingProblems, previewFile, whereText, type Mapping, type RecordDefaults } from '@loupe/file-import';
import { importFile, importProgressLine, type ImportProgress } from './import-file';

export interface ImportCommandIo {
  out: (line: string) => void;
  err: (text: string) => void;
  now: () => number;
}

export interface ImportCommandInput {
  file: string;
  mappingFile: string;
  dryRun: boolean;
  defaults: RecordDefaults;
  /** Ctrl-C: stop after the request in flight. */
  signal?: AbortSignal;
}

/** The mapping file parsed and checked; a list of what is wrong otherwise. */
export async function loadMapping(path: string): Promise<{ mapping?: Mapping; problems: string[] }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { problems: [`cannot read the mapping ${path}: ${(error as Error).message}`] };
  }
  try {
    return mappingProblems(JSON.parse(text));
  } catch (error) {
    return { problems: [`the mapping ${path} is not valid JSON: ${(error as Error).message}`] };
  }
}

/** Exit codes: 0 every row stored (or, for a dry run, every previewed row valid), 1 some refused, 2 the mapping is wrong, 130 stopped. */
export async function runImportCommand(input: ImportCommandInput, client: () => Pick<IngestClient, 'submitChunk'>, io: ImportCommandIo): Promise<number> {
  const { mapping, problems } = await loadMapping(input.mappingFile);
  if (!mapping) {
    io.err(`error: the mapping ${input.mappingFile} is wrong:\n${problems.map((p) => `  ${p}\n`).join('')}`);
    return 2;
  }
  if (input.dryRun) {
    const rows = await previewFile(input.file, mapping, input.defaults);
    let bad = 0;
    for (const row of rows) {
      if (row.problems.length) {
        bad++;
        io.out(`${whereText(row.where)}: refused\n${row.problems.map((p) => `  ${p}`).join('\n')}`);
      } else io.out(`${whereText(row.where)}: ${JSON.stringify(row.record)}`);
    }
    io.out(`Dry run: ${rows.length} rows previewed, ${rows.length - bad} valid, ${bad} refused; nothing sent.`);
    return bad ? 1 : 0;
  }
  let last = 0;
  const show = (p: ImportProgress, force = false) => {
    if (!force && io.now() - last < 1000) return;
    last = io.now();
    io.err(`${importProgressLine(p)}\n`);
  };
  const done = await importFile(input.file, mapping, input.defaults, {
    client: client(),
    onProgress: (p) => show(p),
    onRefused: (r) => io.err(`${whereText(r.where)}: refused: ${r.problems.join('; ')}\n`),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  show(done, true);
  const n = (x: number) => x.toLocaleString('en-US');
  if (done.stopped) {
    io.out(`Stopped: ${n(done.read)} rows read; ${n(done.sent)} records stored, ${n(done.refused)} refused. Run the same command again to finish: nothing is stored twice.`);
    return 130;
  }
  io.out(`Done: ${n(done.read)} rows read; ${n(done.sent)} records stored (${n(done.duplicates)} already there), ${n(done.refused)} refused, in ${done.requests} requests.`);
  return done.refused ? 1 : 0;
}
