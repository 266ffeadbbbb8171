export { createWorker, type Worker, type WorkerDeps } from './app';
export { DEFAULT_OPTIONS, type WorkerOptions } from './options';
