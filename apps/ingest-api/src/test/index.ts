export { ingestBodies, type GeneratedBody, type RecordFactory } from './bodies';
