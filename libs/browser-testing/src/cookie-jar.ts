/** A browser's cookie jar, enough for one host: every cookie is sent on every path. */
export class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(name: string) {
    return this.cookies.has(name);
  }
}

/** A browser without JavaScript on one host: keeps cookies, follows no redirect by itself, posts forms. */
export class FormBrowser {
  jar = new CookieJar();
  constructor(readonly base: { url: string }) {}

  async get(pathOrUrl: string) {
    const res = await fetch(new URL(pathOrUrl, this.base.url), { redirect: 'manual', headers: { cookie: this.jar.header() } });
    this.jar.store(res);
    return res;
  }

  async post(path: string, form: Record<string, string> | string[][]) {
    const res = await fetch(new URL(path, this.base.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    this.jar.store(res);
    return res;
  }
}

/** The CSRF token of the first form of a page. */
export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
