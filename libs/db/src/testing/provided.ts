// What the global setup hands to each test file through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    loupeTestServerUrl: string;
    loupeTemplateDatabase: string;
  }
}

export {};
