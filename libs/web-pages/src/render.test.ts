import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPageRenderer } from './render';

describe('the page renderer', () => {
  it("renders an app's template in the shared layout, and the shared error page, escaping what it is given", async () => {
    const views = await mkdtemp(path.join(os.tmpdir(), 'loupe-views-'));
    await writeFile(path.join(views, 'hello.eta'), "<% layout('./layout') %>\n<h1><%= it.name %></h1>\n");
    const { render } = createPageRenderer(views);
    const html = render('hello', { title: 'Hello', name: '<Ada>' });
    expect(html).toContain('<title>Hello · Loupe</title>');
    expect(html).toContain('<link rel="stylesheet" href="/oauth/assets/loupe.css">');
    expect(html).toContain('<h1>&lt;Ada&gt;</h1>');
    expect(render('error', { title: 'Gone', heading: 'Gone', message: 'It went.', code: 'gone' })).toContain('Error code: <code>gone</code>');
  });

  it('refuses a template outside the views directories', () => {
    expect(() => createPageRenderer(os.tmpdir()).render('../../etc/passwd', {})).toThrow(/not in the views/);
  });
});
