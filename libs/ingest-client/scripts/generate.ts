// Writes src/generated/api.ts from the published OpenAPI document: `npm run generate -w @loupe/ingest-client`.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generatedTypes } from '../src/generate';

await writeFile(path.resolve(import.meta.dirname, '../src/generated/api.ts'), await generatedTypes());
console.log('wrote src/generated/api.ts');
