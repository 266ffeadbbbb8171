import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { nginxConfig } from './nginx';

// `npm run docs:proxy`: writes the sample nginx configuration from the routing table.
const file = path.resolve(import.meta.dirname, '../../../deploy/nginx.conf');
writeFileSync(file, nginxConfig());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
