import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  columnsOf, csvDelimiterOf, eventAtOf, FileReadError, formOfMapping, guessForm, mappingOfForm, mapFileRow, mappingProblems, previewFile, readRows, recordOfRow, type FileRow, type Mapping,
} from './index';

const source = (text: string, chunk = 7) => () => Readable.from(Array.from({ length: Math.ceil(text.length / chunk) }, (_, i) => Buffer.from(text.slice(i * chunk, (i + 1) * chunk))));
const all = async (it: AsyncIterable<FileRow>) => {
  const rows: FileRow[] = [];
  for await (const r of it) rows.push(r);
  return rows;
};

const reviews: Mapping = {
  type: 'message',
  event_at: { column: 'at', format: 'unix' },
  vendor_ids: { appstore: { column: 'id' } },
  participants: [{ name: { column: 'author' }, email: { column: 'email' }, role: 'external' }],
  tags: { column: 'tags', separator: ';' },
  data: { title: { column: 'review.title' }, text: { column: 'review.body' }, rating: { column: 'rating', as: 'number' } },
};

describe('the mapping schema', () => {
  it('names every problem of a mapping with its path', () => {
    const { problems } = mappingProblems({ type: 'chat', event_at: { column: '', format: 'whenever' }, vendor_ids: {}, data: { text: { column: 'b', as: 'date' } } });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/^type: must be one of/),
      'event_at.column: must name a column',
      'event_at.format: must be iso, unix, unix_ms or a pattern of YYYY, MM, DD, HH, mm, ss',
      expect.stringMatching(/^vendor_ids: must name at least one id/),
      expect.stringMatching(/^data\.text: must be \{"column"/),
    ]));
    expect(mappingProblems(reviews)).toEqual({ mapping: reviews, problems: [] });
  });

  it('refuses a mapping PostgreSQL could not store (a NUL, an unpaired surrogate)', () => {
    const why = ['mapping: holds a NUL character or an unpaired surrogate, which cannot be stored'];
    expect(mappingProblems({ ...reviews, data: { text: { column: 'a\u0000b' } } }).problems).toEqual(why);
    expect(mappingProblems({ ...reviews, vendor_ids: { 'x\ud800': { column: 'id' } } }).problems).toEqual(why);
    expect(mappingProblems({ ...reviews, data: { text: { column: 'emoji 😀' } } }).problems).toEqual([]);
  });

  it('maps a row to a record, naming each field a row leaves wrong', () => {
    const row = { id: 'rv-1', at: '1763600000', author: 'Kim', email: 'kim@initech.example', tags: 'crash; ios', rating: '2', review: { title: 'Crashes', body: 'On launch' } };
    expect(recordOfRow(reviews, row, { productId: 'prod_1', projectIds: ['proj_1'] })).toEqual({
      ok: true,
      record: {
        _type: 'message', _schema_version: '1.0.0', _event_at: '2025-11-20T00:53:20Z', _vendor_ids: { appstore: 'rv-1' }, _product_id: 'prod_1', _project_ids: ['proj_1'],
        _nature: 'evidence', _participants: [{ id: 'kim@initech.example', role: 'external', name: 'Kim', email: 'kim@initech.example' }], _tags: ['crash', 'ios'],
        data: { title: 'Crashes', text: 'On launch', rating: 2 },
      },
      columns: {
        '_event_at': 'at', '_vendor_ids.appstore': 'id', 'data.title': 'review.title', 'data.text': 'review.body', 'data.rating': 'rating',
        '_tags': 'tags', '_participants[0].name': 'author', '_participants[0].email': 'email',
      },
    });
    // A rule of the record schema broken by a cell is named with its column and value.
    const wrongEmail = mapFileRow(reviews, { where: { line: 7 }, row: { ...row, email: 'kim@' } }, { productId: 'prod_1', projectIds: ['proj_1'] });
    expect(wrongEmail.problems).toEqual(['_participants[0].email: Invalid email address (column "email": "kim@")']);
    expect(recordOfRow(reviews, { id: '', at: 'soon', rating: 'two' }, { productId: 'prod_1', projectIds: ['proj_1'] })).toEqual({
      ok: false,
      problems: ['_event_at: "soon" in column "at" does not fit the format unix (seconds since 1970)', '_vendor_ids.appstore: column "id" is empty', 'data.rating: "two" in column "rating" is not a number'],
    });
  });

  it('reads dates as ISO, unix or a pattern, in UTC, and refuses days that do not exist', () => {
    expect(eventAtOf('2026-11-20 10:05')).toBe('2026-11-20T10:05:00Z');
    expect(eventAtOf('1763600000000', 'unix_ms')).toBe('2025-11-20T00:53:20Z');
    expect(eventAtOf('11/20/2026', 'MM/DD/YYYY')).toBe('2026-11-20T00:00:00Z');
    expect(eventAtOf('2026-13-01')).toBeUndefined();
    expect(eventAtOf('29/02/2027', 'DD/MM/YYYY')).toBeUndefined();
  });
});

describe('reading a file as a stream', () => {
  it('reads CSV with quoted cells over several lines, naming each row by its line', async () => {
    const rows = await all(readRows(source('\uFEFFid,text\n1,"two\nlines"\n\n2,plain\n'), { format: 'csv' }));
    expect(rows).toEqual([{ where: { line: 3 }, row: { id: '1', text: 'two\nlines' }, end: 25 }, { where: { line: 5 }, row: { id: '2', text: 'plain' }, end: 34 }]);
  });

  it('finds a CSV\'s separator from its first line: comma, semicolon, tab or bar', async () => {
    expect(csvDelimiterOf('id,text\n1,a;b')).toBe(',');
    expect(csvDelimiterOf('\uFEFFID;"Date, created";Text\r\n1;x;y')).toBe(';');
    expect(csvDelimiterOf('id\ttext\n')).toBe('\t');
    expect(csvDelimiterOf('single\n')).toBe(',');
    const rows = await all(readRows(source('ID;Created;Text\n1;20/11/2026;"Hello; world"\n'), { format: 'csv' }));
    expect(rows).toEqual([{ where: { line: 2 }, row: { ID: '1', Created: '20/11/2026', Text: 'Hello; world' }, end: 44 }]);
  });

  it('reads NDJSON line by line, a bad line refused on its own', async () => {
    const rows = await all(readRows(source('{"id":1}\n[1]\n{oops\n\n{"id":2}\n')));
    expect(rows.map((r) => [r.where, r.row ?? r.problem])).toEqual([
      [{ line: 1 }, { id: 1 }], [{ line: 2 }, 'not a JSON object'], [{ line: 3 }, expect.stringMatching(/^not valid JSON/)], [{ line: 5 }, { id: 2 }],
    ]);
  });

  it('reads a JSON array item by item, and names where a broken file stops', async () => {
    const rows = await all(readRows(source('[{"id":1},{"id":2},3]')));
    expect(rows.map((r) => [r.where, r.row ?? r.problem])).toEqual([[{ item: 1 }, { id: 1 }], [{ item: 2 }, { id: 2 }], [{ item: 3 }, 'not a JSON object']]);
    await expect(all(readRows(source('[{"id":1},{"id":')))).rejects.toThrow(FileReadError);
    await expect(all(readRows(source('id,text\n1,"never closed\n2,x\n'), { format: 'csv' }))).rejects.toThrow(/^The file cannot be read at its header|^The file cannot be read after line/);
  });

  it('finds the columns of the first rows, nested keys as a.b', async () => {
    expect(await columnsOf(source('{"id":1,"review":{"title":"t","body":"b"}}\n{"id":2,"extra":null}\n'))).toEqual(['id', 'review.title', 'review.body', 'extra']);
    expect(await columnsOf(source('Ticket ID,Subject\n1,x\n'), { format: 'csv' })).toEqual(['Ticket ID', 'Subject']);
  });

  it('previews the first rows with the problems the API would name', async () => {
    const text = 'id,at,email,body\n1,2026-11-20,ana@globex.example,Slow export\n2,2026-11-21,not-an-email,Login fails\n3,2026-11-22,,Fine\n';
    const mapping: Mapping = { type: 'message', event_at: { column: 'at' }, vendor_ids: { s: { column: 'id' } }, participants: [{ email: { column: 'email' } }], data: { text: { column: 'body' } } };
    const rows = await previewFile(source(text), mapping, { productId: 'prod_1', projectIds: ['proj_1'] }, 2, { format: 'csv' });
    expect(rows).toHaveLength(2);
    expect(rows[0]!.problems).toEqual([]);
    expect(rows[1]!.where).toEqual({ line: 3 });
    expect(rows[1]!.problems.join()).toMatch(/_participants\[0\]\.email/);
  });
});

describe('the column-by-column form', () => {
  const columns = ['Ticket ID', 'Created at', 'Requester', 'Requester email', 'Subject', 'Description', 'Tags', 'Score'];

  it('guesses the id, date, person, tags, title and text columns from their names', () => {
    const form = guessForm(columns);
    expect(form).toMatchObject({ idColumn: 'Ticket ID', eventAtColumn: 'Created at', personNameColumn: 'Requester', personEmailColumn: 'Requester email', tagsColumn: 'Tags' });
    expect(form.data).toEqual([
      { column: 'Ticket ID', key: '', as: 'text' }, { column: 'Created at', key: '', as: 'text' }, { column: 'Requester', key: '', as: 'text' },
      { column: 'Requester email', key: '', as: 'text' }, { column: 'Subject', key: 'title', as: 'text' }, { column: 'Description', key: 'text', as: 'text' },
      { column: 'Tags', key: '', as: 'text' }, { column: 'Score', key: 'score', as: 'number' },
    ]);
  });

  it('becomes the mapping a file would hold, and back', () => {
    const form = { ...guessForm(columns), type: 'conversation', eventAtFormat: 'DD/MM/YYYY HH:mm', idSystem: 'helpdesk', tagsSeparator: ';' };
    const { mapping, problems } = mappingOfForm(form, { productId: 'prod_1', projectId: 'proj_1' });
    expect(problems).toEqual([]);
    expect(mapping).toEqual({
      type: 'conversation', event_at: { column: 'Created at', format: 'DD/MM/YYYY HH:mm' }, vendor_ids: { helpdesk: { column: 'Ticket ID' } },
      product_id: 'prod_1', project_ids: ['proj_1'],
      participants: [{ name: { column: 'Requester' }, email: { column: 'Requester email' }, role: 'external' }],
      tags: { column: 'Tags', separator: ';' },
      data: { title: { column: 'Subject' }, text: { column: 'Description' }, score: { column: 'Score', as: 'number' } },
    });
    expect(formOfMapping(mapping!, columns)).toEqual({ form, complete: true });
    expect(formOfMapping({ ...mapping!, data: { ...mapping!.data, channel: { value: 'help desk' } } }, columns).complete).toBe(false);
  });

  it('keeps a team member of the row (an agent, a sales rep) as an internal participant', () => {
    const form = { ...guessForm(['Call ID', 'Date', 'Customer', 'Rep', 'Notes']), type: 'meeting_notes', idSystem: 'crm' };
    expect(form).toMatchObject({ personNameColumn: 'Customer', teamNameColumn: 'Rep' });
    const { mapping } = mappingOfForm(form, { productId: 'prod_1', projectId: 'proj_1' });
    expect(mapping!.participants).toEqual([{ name: { column: 'Customer' }, role: 'external' }, { name: { column: 'Rep' }, role: 'internal' }]);
    expect(formOfMapping(mapping!, ['Call ID', 'Date', 'Customer', 'Rep', 'Notes'])).toEqual({ form, complete: true });
    const two = { ...mapping!, participants: [mapping!.participants![0]!, { ...mapping!.participants![1]!, role: 'external' as const }] };
    expect(formOfMapping(two, ['Call ID']).complete).toBe(false);
  });

  it('names each field of the form that is wrong', () => {
    const form = { ...guessForm(columns), type: 'tweet', idColumn: '', eventAtFormat: 'someday', idSystem: 'help desk' };
    form.data = form.data.map((d) => (d.column === 'Score' ? { ...d, key: 'title' } : d.column === 'Subject' ? { ...d, key: 'bad key!' } : d));
    expect(mappingOfForm(form, { productId: '', projectId: 'proj_1' }).problems).toEqual([
      expect.stringMatching(/^Record type: choose one of/),
      'Date format: "someday" is not iso, unix, unix_ms or a pattern of YYYY, MM, DD, HH, mm, ss',
      expect.stringMatching(/^Id: choose the column/),
      expect.stringMatching(/^Id system: 1 to 64/),
      'Product: choose the product these records are about',
      'Column "Subject": the key "bad key!" must be 1 to 64 letters, digits, ".", "_" or "-"',
    ]);
    const twice = { ...guessForm(columns), data: guessForm(columns).data.map((d) => (d.column === 'Score' ? { ...d, key: 'text' } : d)) };
    expect(mappingOfForm(twice, { productId: 'p', projectId: 'q' }).problems).toEqual(['Column "Score": the key "text" is already filled by column "Description"']);
  });
});
