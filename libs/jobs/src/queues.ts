import { z } from 'zod';

/** Every queue of the system: the contract between producers and the worker. */
export const QUEUES = {
  /** Turn a landed batch's records into sources and charge for them. */
  processBatch: 'batch.process',
  /** Download one attachment given by `vendor_url`. */
  downloadAttachment: 'attachment.download',
  /** Place a product's new and changed signals in opportunities (one pending job per product). */
  recomputeOpportunities: 'opportunities.recompute',
  /** Re-cluster a product in full once its signals have been quiet for a while, if it changed since the last time. */
  settleOpportunities: 'opportunities.settle',
  /** Embed a workspace's new sources for semantic search (one pending job per workspace). */
  embedSources: 'sources.embed',
  /** Erase a person from a workspace (libs/erasure), slice by slice; the payload names only the request. */
  erasePerson: 'person.erase',
  /**
   * Retention (libs/lifecycle): without a workspace, the hourly sweep (queues one job per workspace with
   * retention on, prunes the deletion log, and queues itself an hour later); with one, a slice of that
   * workspace's old sources deleted, queued again while there are more.
   */
  retention: 'lifecycle.retention',
  /**
   * Re-resolve a workspace's signals to its companies after its companies or people changed (libs/companies):
   * one pending job per workspace, so a burst of imports queues one.
   */
  resolveCompanies: 'companies.resolve',
  /**
   * Sync one connection to a vendor (libs/connectors) from its stored cursor: one waiting job per connection
   * and reason (its schedule, or "sync now"); the sync itself holds the connection's lock, so two never run at once.
   */
  syncConnection: 'connection.sync',
  /** Delete what a deleted connection brought in (`?with_data=true`), a slice per job, queued again while more remain. */
  purgeConnection: 'connection.purge',
  /**
   * Import a file uploaded in the console (libs/file-import): the stored file streamed in slices of 1,000 rows
   * through the ingestion API's accept path, resuming from the import's saved cursor after a retry.
   */
  importFile: 'file.import',
  /** Jobs that exhausted their retries, kept for inspection and redrive. */
  deadLetter: 'dead-letter',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const payloadSchemas = {
  [QUEUES.processBatch]: z.strictObject({
    workspaceId: z.string().min(1),
    batchId: z.string().min(1),
  }),
  [QUEUES.downloadAttachment]: z.strictObject({
    workspaceId: z.string().min(1),
    batchId: z.string().min(1),
    attachmentId: z.string().min(1),
  }),
  [QUEUES.recomputeOpportunities]: z.strictObject({
    workspaceId: z.string().min(1),
    productId: z.string().min(1),
  }),
  [QUEUES.settleOpportunities]: z.strictObject({
    workspaceId: z.string().min(1),
    productId: z.string().min(1),
  }),
  [QUEUES.embedSources]: z.strictObject({
    workspaceId: z.string().min(1),
  }),
  [QUEUES.erasePerson]: z.strictObject({
    workspaceId: z.string().min(1),
    erasureId: z.string().min(1),
  }),
  [QUEUES.retention]: z.strictObject({
    workspaceId: z.string().min(1).optional(),
  }),
  [QUEUES.resolveCompanies]: z.strictObject({
    workspaceId: z.string().min(1),
  }),
  [QUEUES.syncConnection]: z.strictObject({
    workspaceId: z.string().min(1),
    connectionId: z.string().min(1),
    reason: z.enum(['schedule', 'now']),
  }),
  [QUEUES.purgeConnection]: z.strictObject({
    workspaceId: z.string().min(1),
    connectionId: z.string().min(1),
  }),
  [QUEUES.importFile]: z.strictObject({
    workspaceId: z.string().min(1),
    importId: z.string().min(1),
  }),
  [QUEUES.deadLetter]: z.looseObject({}),
} satisfies Record<QueueName, z.ZodType>;

export type Payload<Q extends QueueName> = z.infer<(typeof payloadSchemas)[Q]>;

/**
 * The singleton key of a queue's jobs, where it has one: `enqueue` uses it unless told otherwise.
 * `opportunities.recompute` is a `short` queue keyed by workspace and product, so a burst of signal
 * changes leaves at most one queued recompute per product (and one more may queue while one runs,
 * so a change made during a recompute is not lost).
 */
export const singletonKeys: { [Q in QueueName]?: (payload: Payload<Q>) => string } = {
  [QUEUES.recomputeOpportunities]: (p) => recomputeOpportunitiesKey(p.workspaceId, p.productId),
  [QUEUES.settleOpportunities]: (p) => recomputeOpportunitiesKey(p.workspaceId, p.productId),
  [QUEUES.embedSources]: (p) => p.workspaceId,
  [QUEUES.retention]: (p) => p.workspaceId ?? 'sweep',
  [QUEUES.resolveCompanies]: (p) => p.workspaceId,
  [QUEUES.syncConnection]: (p) => `${p.connectionId}:${p.reason}`,
  [QUEUES.purgeConnection]: (p) => p.connectionId,
  [QUEUES.importFile]: (p) => p.importId,
};

export function recomputeOpportunitiesKey(workspaceId: string, productId: string): string {
  return `${workspaceId}:${productId}`;
}
