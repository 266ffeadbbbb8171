export { QUEUES, payloadSchemas, type QueueName, type Payload } from './queues';
export { createBoss, ensureQueues, type Boss } from './boss';
export { enqueue, transactionDb } from './enqueue';
