export { QUEUES, payloadSchemas, recomputeOpportunitiesKey, singletonKeys, type QueueName, type Payload } from './queues';
export { createBoss, ensureQueues, DEFAULT_JOB_POLICY, type Boss, type JobPolicy } from './boss';
export { enqueue, transactionDb } from './enqueue';
