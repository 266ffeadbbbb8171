import { readFile } from 'node:fs/promises';
import wasm from '@prisma/prisma-schema-wasm';
import type pg from 'pg';

/** A table as both sides describe it: columns with type and nullability, and indexes by their columns. */
export interface TableShape {
  columns: Record<string, { type: string; nullable: boolean }>;
  indexes: string[];
}
export type SchemaShape = Record<string, TableShape>;

interface DmmfField {
  name: string;
  dbName: string | null;
  kind: 'scalar' | 'object' | 'enum';
  type: string;
  isList: boolean;
  isRequired: boolean;
  nativeType: [string, string[]] | null;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  fields: { name: string; sortOrder?: 'asc' | 'desc' }[];
}
interface Dmmf {
  datamodel: { models: DmmfModel[]; enums: { name: string; dbName: string | null }[]; indexes: DmmfIndex[] };
}

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Int: 'integer',
  BigInt: 'bigint',
  Boolean: 'boolean',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  Json: 'jsonb',
  DateTime: 'timestamp(3) without time zone',
  Bytes: 'bytea',
};

function nativeType(field: DmmfField): string {
  if (!field.nativeType) return SCALAR_TYPES[field.type] ?? `unknown:${field.type}`;
  const [name, args] = field.nativeType;
  switch (name) {
    case 'Timestamptz':
      return `timestamp(${args[0] ?? 3}) with time zone`;
    case 'Timestamp':
      return `timestamp(${args[0] ?? 3}) without time zone`;
    case 'VarChar':
      return args[0] ? `character varying(${args[0]})` : 'character varying';
    case 'Decimal':
      return args.length ? `numeric(${args.join(',')})` : 'numeric';
    case 'Date':
      return 'date';
    default:
      return name.toLowerCase();
  }
}

/**
 * `Unsupported("tsvector")` fields, which the DMMF leaves out (their indexes stay in it): read from the
 * schema text, model by model, with their `@map` name.
 */
function unsupportedFields(prismaSchema: string): Map<string, { name: string; dbName: string; type: string; nullable: boolean }[]> {
  const found = new Map<string, { name: string; dbName: string; type: string; nullable: boolean }[]>();
  for (const [, model, body] of prismaSchema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    for (const [, name, type, optional, rest] of body!.matchAll(/^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/gm)) {
      const dbName = /@map\("([^"]+)"\)/.exec(rest!)?.[1] ?? name!;
      const list = found.get(model!) ?? [];
      list.push({ name: name!, dbName, type: type!, nullable: optional === '?' });
      found.set(model!, list);
    }
  }
  return found;
}

/** What prisma/schema.prisma says the database looks like. */
export async function schemaFromPrisma(schemaPath: string): Promise<SchemaShape> {
  const prismaSchema = await readFile(schemaPath, 'utf8');
  const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema }))) as Dmmf;
  const enumDbName = new Map(dmmf.datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const unsupported = unsupportedFields(prismaSchema);
  const shape: SchemaShape = {};
  for (const model of dmmf.datamodel.models) {
    const columnOf = new Map(model.fields.map((f) => [f.name, f.dbName ?? f.name]));
    const columns: TableShape['columns'] = {};
    for (const f of model.fields) {
      if (f.kind === 'object') continue;
      let type = f.kind === 'enum' ? `enum:${enumDbName.get(f.type)}` : nativeType(f);
      if (f.isList) type += '[]';
      // Prisma creates list columns without NOT NULL.
      columns[f.dbName ?? f.name] = { type, nullable: f.isList ? true : !f.isRequired };
    }
    for (const f of unsupported.get(model.name) ?? []) {
      columnOf.set(f.name, f.dbName);
      columns[f.dbName] = { type: f.type, nullable: f.nullable };
    }
    const indexes = dmmf.datamodel.indexes
      .filter((i) => i.model === model.name)
      .map((i) => {
        const cols = i.fields.map((f) => `${columnOf.get(f.name)}${f.sortOrder === 'desc' ? ' DESC' : ''}`);
        return `${i.type === 'normal' ? 'index' : 'unique'}(${cols.join(', ')})`;
      })
      .sort();
    shape[model.dbName ?? model.name] = { columns, indexes };
  }
  return shape;
}

/** What the migrated database actually has (tables of the public schema, bookkeeping excluded). */
export async function schemaFromDatabase(pool: pg.Pool): Promise<SchemaShape> {
  const { rows: cols } = await pool.query<{ table_name: string; column_name: string; type: string; nullable: boolean; udt: string; typtype: string }>(`
    SELECT c.relname AS table_name, a.attname AS column_name,
           format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
           t.typname AS udt, t.typtype::text AS typtype
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_type t ON t.oid = a.atttypid
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      AND c.relname <> '_prisma_migrations'`);
  const { rows: idx } = await pool.query<{ table_name: string; is_unique: boolean; cols: string[] }>(`
    SELECT t.relname AS table_name, ix.indisunique OR ix.indisprimary AS is_unique,
           array_agg(a.attname || CASE WHEN (ix.indoption[k.i - 1] & 1) = 1 THEN ' DESC' ELSE '' END ORDER BY k.i) AS cols
    FROM pg_index ix
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, i)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
    GROUP BY t.relname, ix.indexrelid, ix.indisunique, ix.indisprimary`);
  const shape: SchemaShape = {};
  for (const c of cols) {
    const table = (shape[c.table_name] ??= { columns: {}, indexes: [] });
    const isEnum = c.typtype === 'e' || (c.udt.startsWith('_') && c.type.endsWith('[]') && !/^(text|integer|bigint)/.test(c.type));
    const type = isEnum ? `enum:${c.type.replace(/^"|"$/g, '')}` : c.type;
    table.columns[c.column_name] = { type, nullable: c.nullable };
  }
  for (const i of idx) {
    const table = (shape[i.table_name] ??= { columns: {}, indexes: [] });
    table.indexes.push(`${i.is_unique ? 'unique' : 'index'}(${i.cols.join(', ')})`);
  }
  for (const t of Object.values(shape)) t.indexes.sort();
  return shape;
}
