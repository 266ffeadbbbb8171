import { describe, expect, it } from 'vitest';
import { openApiDocument } from './index';

type Schema = Record<string, unknown>;

/** Every property of every schema under `node`, named by where it is, that has no description of its own. */
function undescribedProperties(node: unknown, where: string): string[] {
  if (!node || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((item, i) => undescribedProperties(item, `${where}[${i}]`));
  const schema = node as Schema;
  const missing: string[] = [];
  if (schema.properties && typeof schema.properties === 'object') {
    for (const [name, property] of Object.entries(schema.properties as Record<string, Schema>)) {
      if (typeof property.description !== 'string' && !('$ref' in property)) missing.push(`${where}.${name}`);
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'examples' || key === 'example') continue;
    missing.push(...undescribedProperties(value, key === 'properties' ? where : `${where}/${key}`));
  }
  return missing;
}

describe('the OpenAPI document', () => {
  const doc = openApiDocument('https://loupe.example');

  it('describes every field of every body it publishes, request and answer', () => {
    expect(undescribedProperties(doc, '#')).toEqual([]);
  });

  it('a field added without a description is found', () => {
    expect(undescribedProperties({ components: { schemas: { X: { properties: { a: { type: 'string' }, b: { type: 'string', description: 'b' } } } } } }, '#'))
      .toEqual(['#/components/schemas/X.a']);
  });

  it('publishes the per-IP 429 body beside the per-key one', () => {
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Schema }> }> }>>;
    const tooMany = paths['/api/v1/ingest']!.post!.responses['429']!.content['application/json']!.schema;
    expect(tooMany).toEqual({ oneOf: [{ $ref: '#/components/schemas/ErrorResponse' }, { $ref: '#/components/schemas/IpRateLimited' }] });
  });
});
