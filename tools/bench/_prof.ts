import { runIngestBench, printIngest } from './ingest';
import { startBenchService } from './lib';
const service = await startBenchService({ WORKER_ENABLED: 'false', NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/prof' });
printIngest(await runIngestBench({ service, seconds: 10 }));
await service.close();
