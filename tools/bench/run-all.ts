import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { printIngest, runIngestBench } from './ingest';
import { machine } from './lib';
import { printPipeline, runPipelineBench } from './pipeline';
import { chartSvg, reportMarkdown } from './report';
import { printSoak, runSoakBench } from './soak';

// `npm run bench`: ingest, pipeline and soak, then tools/bench/reports/latest.md and latest.svg.
const ingest = await runIngestBench();
printIngest(ingest);
const pipeline = await runPipelineBench();
printPipeline(pipeline);
const soak = await runSoakBench();
printSoak(soak);
const dir = path.join(import.meta.dirname, 'reports');
await mkdir(dir, { recursive: true });
await writeFile(path.join(dir, 'latest.svg'), chartSvg(ingest, pipeline, soak));
await writeFile(path.join(dir, 'latest.md'), reportMarkdown(ingest, pipeline, soak, machine(), new Date().toISOString(), 'latest.svg'));
console.log(`report: ${path.relative(process.cwd(), path.join(dir, 'latest.md'))}`);
