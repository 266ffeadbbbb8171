import { defineConfig } from 'prisma/config';

// The CLI is only used for `prisma generate`; migrations are applied by libs/db.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/loupe' },
});
