import { z } from 'zod';

/** Every queue of the system: the contract between producers and the worker. */
export const QUEUES = {
  /** Turn a landed batch's records into sources and charge for them. */
  processBatch: 'batch.process',
  /** Download one attachment given by `vendor_url`. */
  downloadAttachment: 'attachment.download',
  /** Re-cluster a product's signals into opportunities after signals changed (one pending job per product). */
  recomputeOpportunities: 'opportunities.recompute',
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
  [QUEUES.deadLetter]: z.looseObject({}),
} satisfies Record<QueueName, z.ZodType>;

export type Payload<Q extends QueueName> = z.infer<(typeof payloadSchemas)[Q]>;
