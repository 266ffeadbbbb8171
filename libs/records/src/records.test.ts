import { describe, expect, it } from 'vitest';
import { BodyError, canonicalVendorIds, dedupKeyOf, parseBody, recordSchema, truncateEventAt, validateItems } from './index';
import { mayHoldUnstorable, nestingDepth, rawDataOfObject, rawDataOfRecords } from './raw-json';

describe('raw JSON positions', () => {
  it('finds each record and the exact text of its data, the last one when repeated', () => {
    const text = ' [ {"a":1,"data": {"z":1, "a":[1.50, "x\\"}"]} } , {"data":{"q":1},"data" : {"last":true}} ,{"b":[]}]';
    expect(rawDataOfRecords(text)).toEqual([
      { text: '{"z":1, "a":[1.50, "x\\"}"]}', depth: 2 },
      { text: '{"last":true}', depth: 1 },
      undefined,
    ]);
    expect(rawDataOfRecords('[1, "x", {"data": 7}, [{"data": {}}], {"data":"s"} ]')).toEqual([
      undefined, undefined, { text: '7', depth: 0 }, undefined, { text: '"s"', depth: 0 },
    ]);
  });

  it('reads the records of a wrapper and keys written with escapes', () => {
    const text = '{"records":[{"d\\u0061ta":{"k":"v"}}]}';
    expect(rawDataOfRecords(text)).toEqual([{ text: '{"k":"v"}', depth: 1 }]);
    expect(rawDataOfRecords('{"records":{"data":1}}')).toBeUndefined();
    expect(rawDataOfObject(' {"a":{"data":1},"dat":2,"d\\"ata":3,"data" : [[]] }')).toEqual({ text: '[[]]', depth: 2 });
  });

  it('measures nesting without recursion, ignoring brackets inside strings', () => {
    expect(nestingDepth('{"a":[{"b":"[[[["}]}')).toBe(3);
    expect(nestingDepth('['.repeat(200_000) + ']'.repeat(200_000))).toBe(200_000);
  });
});

describe('parseBody', () => {
  it('numbers NDJSON records by non-blank line', () => {
    const items = parseBody('ndjson', Buffer.from('{"data":{}}\n\n  \nnope\r\n{"data":{"x":1}}\n'));
    expect(items.map((i) => [i.index, i.ok])).toEqual([[0, true], [1, false], [2, true]]);
    expect(items[2]).toMatchObject({ rawData: { text: '{"x":1}', depth: 1 } });
  });

  it('ignores a UTF-8 byte order mark', () => {
    expect(parseBody('json', Buffer.from('\ufeff[{"data":{}}]'))).toHaveLength(1);
  });

  it.each([
    ['{"records":{}}', 'INVALID_BODY'],
    ['"text"', 'INVALID_BODY'],
    ['[', 'INVALID_JSON'],
    ['[]', 'NO_RECORDS'],
    ['', 'INVALID_JSON'],
  ])('refuses %j as %s', (body, code) => {
    expect(() => parseBody('json', Buffer.from(body))).toThrow(expect.objectContaining({ code }) as BodyError);
  });
});

describe('characters PostgreSQL cannot store', () => {
  it('are looked for only where an escape could hold them', () => {
    expect(mayHoldUnstorable('{"a":"caf\\u00e9 \\ud83d\\ude00"}')).toBe(true); // a surrogate pair escape: look closer
    expect(mayHoldUnstorable('{"a":"caf\\u00e9"}')).toBe(false);
    expect(mayHoldUnstorable('{"a":"\\u0000"}')).toBe(true);
  });
});

describe('dedup key', () => {
  it('ignores vendor id key order and sub-second precision after truncation', () => {
    expect(canonicalVendorIds({ b: '2', a: '1' })).toBe(canonicalVendorIds({ a: '1', b: '2' }));
    const at = truncateEventAt('2026-01-02T03:04:05.678Z');
    expect(at).toBe('2026-01-02T03:04:05Z');
    expect(dedupKeyOf('email', { b: '2', a: '1' }, at)).toBe(dedupKeyOf('email', { a: '1', b: '2' }, truncateEventAt('2026-01-02T03:04:05Z')));
    expect(dedupKeyOf('call', { a: '1' }, at)).not.toBe(dedupKeyOf('email', { a: '1' }, at));
    expect(dedupKeyOf('email', { a: '1:2' }, at)).not.toBe(dedupKeyOf('email', { 'a:1': '2' }, at));
  });
});

describe('validateItems', () => {
  const valid = {
    _type: 'call', _schema_version: '1.0.0', _event_at: '2026-01-02T03:04:05Z', _vendor_ids: { x: '1' },
    _product_id: 'p', _project_ids: ['j'], _nature: 'evidence', data: {},
  };
  it('accepts a record and gives every broken rule its own error with the path', () => {
    const r = validateItems([
      { index: 0, ok: true, value: valid, rawData: { text: '{}', depth: 1 }, mayHoldUnstorable: false },
      { index: 1, ok: true, value: { ...valid, _type: 'fax', _tags: ['x'.repeat(65)], extra: 1 }, rawData: { text: '{}', depth: 1 }, mayHoldUnstorable: false },
    ]);
    expect(r.accepted.map((a) => a.index)).toEqual([0]);
    expect(r.errors.map((e) => e.message.split(':')[0])).toEqual(['_type', '_tags[0]', 'record']);
    expect(r.errors[2]!.message).toBe('record: unknown property "extra" (no additional properties are allowed)');
  });
});

describe('bounded collections', () => {
  const valid = {
    _type: 'call', _schema_version: '1.0.0', _event_at: '2026-01-02T03:04:05Z', _vendor_ids: { x: '1' },
    _product_id: 'p', _project_ids: ['j'], _nature: 'evidence', data: {},
  };
  const validate = (value: unknown) => validateItems(parseBody('json', Buffer.from(JSON.stringify([value]))));

  it('refuses an over-long list or map with one error naming the bound, whatever its elements', () => {
    const bad = Array.from({ length: 2_400_000 }, () => '');
    const r = validate({ ...valid, _project_ids: bad });
    expect(r.errors).toEqual([{ index: 0, code: 'VALIDATION_ERROR', message: '_project_ids: has 2400000 items; at most 100 are allowed' }]);
    const vendorIds = Object.fromEntries(Array.from({ length: 800_000 }, (_, i) => [`k${i}`, i]));
    expect(validate({ ...valid, _vendor_ids: vendorIds }).errors.map((e) => e.message))
      .toEqual(['_vendor_ids: has 800000 entries; at most 50 are allowed']);
    const entities = Array.from({ length: 1001 }, () => ({ type: 'email' }));
    expect(validate({ ...valid, _pii: { detected_entities: entities } }).errors.map((e) => e.message))
      .toEqual(['_pii.detected_entities: has 1001 items; at most 1000 are allowed']);
  });

  it('reports at most five errors per record, however many elements are broken', () => {
    const participants = Array.from({ length: 5000 }, () => ({}));
    const r = validate({ ...valid, _participants: participants, _tags: Array(200).fill(7) });
    expect(r.errors.map((e) => e.message)).toEqual([
      '_participants[0].id: is required', '_participants[0].role: is required',
      '_participants[1].id: is required', '_participants[1].role: is required',
      '_participants[2].id: is required',
    ]);
    const manyKeys = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`extra${i}`, 1]));
    const one = validate({ ...valid, ...manyKeys });
    expect(one.errors).toHaveLength(1);
    expect(one.errors[0]!.message).toMatch(/^record: unknown properties "extra0", .* and 49990 more \(no additional/);
    expect(validate({ ...valid, _vendor_ids: { a: 1, b: 'ok', c: null } }).errors.map((e) => e.message))
      .toEqual(['_vendor_ids.a: Invalid input: expected string, received number', '_vendor_ids.c: Invalid input: expected string, received null']);
  });

  it('still accepts collections at their bounds', () => {
    const r = validate({
      ...valid,
      _project_ids: Array.from({ length: 100 }, (_, i) => `p${i}`),
      _vendor_ids: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `${i}`])),
      _tags: Array(200).fill('t'),
      _participants: Array.from({ length: 5000 }, (_, i) => ({ id: `u${i}`, role: 'external' })),
    });
    expect(r.errors).toEqual([]);
    expect(r.accepted).toHaveLength(1);
  });

  it('gives the same verdict as the published record schema', () => {
    const variants: unknown[] = [
      valid, { ...valid, _vendor_ids: {} }, { ...valid, _vendor_ids: [] }, { ...valid, _vendor_ids: 'x' }, { ...valid, _project_ids: [] },
      { ...valid, _project_ids: 'j' }, { ...valid, _project_ids: ['x'.repeat(129)] }, { ...valid, _participants: [{ id: 'a', role: 'internal', x: 1 }] },
      { ...valid, _participants: null }, { ...valid, _attachments: Array(11).fill({ type: 'file' }) }, { ...valid, _attachments: [{ type: 'file' }] },
      { ...valid, _pii: { detected_entities: [{ type: 'email', confidence: 2 }] } }, { ...valid, _pii: { detected_entities: {} } },
      { ...valid, _pii: { contains_email: true, detected_entities: [{ type: 'phone' }] } }, { ...valid, _tags: ['a', 'b'] }, null, [], 'record',
    ];
    for (const v of variants) {
      const ours = validateItems([{ index: 0, ok: true, value: v, rawData: { text: '{}', depth: 1 }, mayHoldUnstorable: false }]);
      expect(ours.accepted.length === 1, JSON.stringify(v)).toBe(recordSchema.safeParse(v).success);
    }
  });

  it('keeps a 5 MB body of bad elements to a handful of errors per record', () => {
    const records = Array.from({ length: 300 }, () => ({ ...valid, _participants: Array(5000).fill(1) }));
    const body = Buffer.from(JSON.stringify(records));
    expect(body.length).toBeLessThan(5 * 1024 * 1024);
    const r = validateItems(parseBody('json', body));
    expect(r.rejectedIndexes.size).toBe(300);
    expect(r.errors).toHaveLength(300 * 5);
  });
});

describe('_event_at', () => {
  const at = (value: string) => recordSchema.shape._event_at.safeParse(value).success;
  it.each(['2024-02-29T00:00:00Z', '2026-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2000-02-29T12:00:00.5Z'])(
    'accepts the real instant %s', (value) => expect(at(value)).toBe(true));
  it.each(['2026-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-13-01T00:00:00Z', '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:60:00Z', '2026-01-01T00:00:60Z', '0000-01-01T00:00:00Z'])(
    'refuses the impossible %s', (value) => expect(at(value)).toBe(false));
});
