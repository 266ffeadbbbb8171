import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { printImpact, runImpactBench } from './impact';
import { printIngest, runIngestBench } from './ingest';
import { machine } from './lib';
import { printMcp, runMcpBench } from './mcp';
import { printOpportunities, runOpportunitiesBench } from './opportunities';
import { printPipeline, runPipelineBench } from './pipeline';
import { chartSvg, reportMarkdown } from './report';
import { printSearch, runSearchBench } from './search';
import { printSoak, runSoakBench } from './soak';
import { printToken, runTokenBench } from './token';
import { printVectorIndex, runVectorIndexBench } from './vector-index';

// `npm run bench`: ingest, pipeline, soak, MCP, token endpoint, search, the semantic index, opportunities and companies' impact
// (printed; not yet in the report), then tools/bench/reports/latest.md and latest.svg.
const ingest = await runIngestBench();
printIngest(ingest);
const pipeline = await runPipelineBench();
printPipeline(pipeline);
const soak = await runSoakBench();
printSoak(soak);
const mcp = await runMcpBench();
printMcp(mcp);
const token = await runTokenBench();
printToken(token);
const search = await runSearchBench();
printSearch(search);
const vectorIndex = await runVectorIndexBench();
printVectorIndex(vectorIndex);
const opportunities = await runOpportunitiesBench();
printOpportunities(opportunities);
printImpact(await runImpactBench());
const dir = path.join(import.meta.dirname, 'reports');
await mkdir(dir, { recursive: true });
await writeFile(path.join(dir, 'latest.svg'), chartSvg(ingest, pipeline, soak, mcp, token));
await writeFile(path.join(dir, 'latest.md'), reportMarkdown(ingest, pipeline, soak, mcp, token, machine(), new Date().toISOString(), 'latest.svg', search, opportunities, vectorIndex));
console.log(`report: ${path.relative(process.cwd(), path.join(dir, 'latest.md'))}`);
