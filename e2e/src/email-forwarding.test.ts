import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { signInWithLoggedCode } from './callback-server';
import { demoFrom, type Demo } from './cluster';
import { root, startProcess, until, type Started } from './process';

/**
 * Issue 45's email forwarding against `npm start`: the project's address read from the console (where an owner
 * allows the team's domain), then real .eml files sent over SMTP to the service's receiver: a Gmail forward with
 * two attachments becomes a source with the forwarder internal, the customer external and both files stored; the
 * same mail again is the same source; a sender of another domain is refused at SMTP with the reason; an unknown
 * address is no mailbox.
 */
const DOMAIN = 'in.loupe.test';
const fixture = (name: string) => readFile(path.join(root, 'libs/connectors/src/email/fixtures', `${name}.eml`), 'utf8');

interface ExportedSource { id: string; record_id: string; type: string; title: string; status: string; participants: Array<{ id: string; role: string; name?: string }>; attachments: Array<{ filename: string; size: number; status: string }> }

describe('email forwarding against npm start (issue 45)', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let demo: Demo;
  let smtpPort: number;
  let address: string;
  let signedIn: import('playwright-core').BrowserContext | undefined;

  const smtp = () => nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  const send = (from: string, to: string, raw: string) => smtp().sendMail({ envelope: { from, to: [to] }, raw });
  const sources = async (): Promise<ExportedSource[]> => {
    const res = await fetch(`${service.url}/api/v1/export`, { headers: { 'x-api-key': demo.key } });
    expect(res.status).toBe(200);
    return (await res.text()).trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.kind === 'source').map((l) => l.source as ExportedSource);
  };
  const storedFiles = async () => readdir(path.join(dataDir, 'attachments', demo.workspaceId, 'mail')).catch(() => [] as string[]);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-forwarding-'));
    delete process.env.DATABASE_URL;
    smtpPort = await freePort();
    [service, browser] = await Promise.all([
      startProcess({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), MAIL_REPLY_DOMAIN: DOMAIN, INBOUND_SMTP_PORT: String(smtpPort) }),
      launchChromium(),
    ]);
    demo = demoFrom(service.output());
  }, 180_000);
  afterAll(async () => {
    await signedIn?.close();
    await browser?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the console shows the project\'s address; an owner allows the team\'s domain', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 1300 } });
    signedIn = context;
    {
      const page = await context.newPage();
      await page.goto(`${service.url}/account`);
      await signInWithLoggedCode(page, 'demo@loupe.local', () => service.output());
      await page.waitForURL(/\/account/);
      await page.goto(`${service.url}/account/w/${demo.workspaceId}/email-forwarding`);
      address = await page.locator(`#addr-${demo.projectId}`).inputValue();
      expect(address).toMatch(/^fwd\+[a-z2-7]{26}@in\.loupe\.test$/);
      // The demo workspace's only member is at loupe.local: that is who may forward until a list is set.
      expect(await page.getByRole('region', { name: 'Who may forward' }).textContent()).toContain('loupe.local');
      await page.getByLabel('Allowed sender domains').fill('acme.test');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/done=domains/);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'e2e-email-forwarding');
      // The address is the project's for good: shown the same again, and the same over the API.
      await page.reload();
      expect(await page.locator(`#addr-${demo.projectId}`).inputValue()).toBe(address);
      const api = await (await fetch(`${service.url}/api/v1/email-forwarding`, { headers: { 'x-api-key': demo.key } })).json() as { addresses: Array<{ project_id: string; address: string }>; sender_domains: string[] };
      expect(api.addresses.find((a) => a.project_id === demo.projectId)?.address).toBe(address);
      expect(api.sender_domains).toEqual(['acme.test']);
    }
  });

  it('a forwarded .eml with two attachments becomes a source with its participants and both files stored; sent twice, still one', async () => {
    const raw = (await fixture('gmail-forward')).replaceAll('fwd+TOKEN@DOMAIN', address);
    const sent = await send('dee@acme.test', address, raw);
    expect(sent.accepted).toEqual([address]);
    const source = await until('the forwarded mail\'s source', async () => (await sources()).find((s) => s.title === 'SSO before the rollout' && s.status === 'ready'), 60_000);
    expect(source.type).toBe('email');
    expect(source.participants.map((p) => `${p.id}:${p.role}`)).toEqual(['dee@acme.test:internal', 'erin@hooli.example:external', 'cto@hooli.example:external']);
    expect(source.attachments.map((a) => [a.filename, a.status])).toEqual([['security-questionnaire.pdf', 'COMPLETE'], ['seats.csv', 'COMPLETE']]);
    const files = await storedFiles();
    expect(files).toHaveLength(2);
    const contents = await Promise.all(files.map((f) => readFile(path.join(dataDir, 'attachments', demo.workspaceId, 'mail', f), 'utf8')));
    expect(contents).toContain('seat,team\n1,Sales\n2,Support\n');
    expect(contents.some((c) => c.startsWith('%PDF-1.4'))).toBe(true);
    // And through the API, as any attachment's file.
    const csv = await fetch(`${service.url}/api/v1/records/${source.record_id}/attachments/1`, { headers: { 'x-api-key': demo.key } });
    expect([csv.status, await csv.text()]).toEqual([200, 'seat,team\n1,Sales\n2,Support\n']);
    const pdf = await fetch(`${service.url}/api/v1/records/${source.record_id}/attachments/0`, { headers: { 'x-api-key': demo.key } });
    expect([pdf.status, (await pdf.text()).slice(0, 8)]).toEqual([200, '%PDF-1.4']);

    const again = await send('dee@acme.test', address, raw);
    expect(again.accepted).toEqual([address]);
    // The second one is landed (and found a duplicate) before the SMTP answer: no waiting needed.
    const batches = await (await fetch(`${service.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': demo.key } })).json() as { data?: Array<{ duplicateCount?: number }>; batches?: Array<{ duplicateCount?: number }> };
    expect(JSON.stringify(batches)).toContain('"duplicateCount":1');
    expect((await sources()).filter((s) => s.title === 'SSO before the rollout')).toHaveLength(1);
    expect(await storedFiles()).toHaveLength(2);

    // The source on the console: who wrote it, the forwarder's note, both files.
    const page = await signedIn!.newPage();
    await page.goto(`${service.url}/account/w/${demo.workspaceId}/sources/${source.id}`);
    const shown = await page.locator('main').textContent();
    for (const words of ['SSO before the rollout', 'Erin Moss', 'security-questionnaire.pdf', 'seats.csv', 'FYI: Hooli wants SSO']) expect(shown).toContain(words);
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'e2e-email-forwarding-source');
  });

  it('a forwarded thread becomes an email thread', async () => {
    const raw = (await fixture('outlook-forward')).replaceAll('fwd+TOKEN@DOMAIN', address);
    await send('dee@acme.test', address, raw);
    const source = await until('the thread\'s source', async () => (await sources()).find((s) => s.title === 'Invoices per team' && s.status === 'ready'), 60_000);
    expect(source.type).toBe('email_thread');
    expect(source.participants.find((p) => p.id === 'chen@initech.example')?.role).toBe('external');
  });

  it('a sender from a domain not allowed is refused at SMTP with the reason, and nothing is stored', async () => {
    const before = (await sources()).length;
    const raw = (await fixture('apple-forward')).replaceAll('fwd+TOKEN@DOMAIN', address).replace('From: Dee Park <dee@acme.test>', 'From: Mallory <mallory@evil.example>');
    const error = await send('mallory@evil.example', address, raw).then(() => undefined, (e: { responseCode?: number; response?: string }) => e);
    expect(error?.responseCode).toBe(550);
    expect(error?.response).toContain('the sender mallory@evil.example is not from a domain this workspace accepts forwarded mail from (evil.example is not allowed)');
    expect(error?.response).toContain('Email forwarding');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await sources()).length).toBe(before);
    expect(await storedFiles()).toHaveLength(2);
  });

  it('an address that does not exist is no mailbox', async () => {
    const error = await send('dee@acme.test', `fwd+${'a'.repeat(26)}@${DOMAIN}`, (await fixture('apple-forward')).replaceAll('fwd+TOKEN@DOMAIN', 'x@y.test'))
      .then(() => undefined, (e: { responseCode?: number; response?: string }) => e);
    expect(error?.responseCode).toBe(550);
    expect(error?.response).toContain('No such mailbox');
  });
});
