import type { CompanyInput, IngestRecordInput, PersonInput } from '@loupe/records';
import type { z } from 'zod';
import type { VendorGet } from './vendor-http';

/** Where a connection's records go: the product and project it was created for. */
export interface Routing {
  productId: string;
  projectId: string;
}

/** What a read needs: the vendor GET (rate limits and auth handled), where the vendor is, and what the connection asks for. */
export interface ReadContext<S> {
  get: VendorGet;
  baseUrl: string;
  settings: S;
  routing: Routing;
  /** When the connection was created: a backfill without a start date starts a while before it. */
  createdAt: Date;
  /** The engine's clock (ms): a connector that reads by time windows ends its window here. Date.now when absent. */
  now?: () => number;
}

/** One page of the vendor, mapped: stored together with `cursor`, in one transaction, or not at all. */
export interface VendorPage {
  records: IngestRecordInput[];
  companies: CompanyInput[];
  people: PersonInput[];
  /** Vendor objects that could not be mapped (malformed), with why: counted as refused, never stored. */
  refused: { object: string; reason: string }[];
  /** The state to resume from once this page is stored. */
  cursor: unknown;
  /** The vendor has nothing more for now: the sync is up to date. */
  done: boolean;
}

/**
 * A vendor, as the engine sees it (Airbyte's and Singer's shape): a spec (its credentials and settings),
 * the headers its credentials become, and a read that maps the vendor's objects page by page from a cursor.
 * The engine, not the connector, schedules, retries, stores pages and keeps the cursor.
 */
export interface Connector<C = unknown, S = unknown> {
  kind: string;
  credentialsSchema: z.ZodType<C>;
  settingsSchema: z.ZodType<S>;
  /** The base URL when none is given; undefined: one must be given. */
  defaultBaseUrl?: string;
  authHeaders(credentials: C): Record<string, string>;
  read(ctx: ReadContext<S>, cursor: unknown): AsyncIterable<VendorPage>;
}
