import type { Assignment } from './clustering';
import type { ReclusterInput, ReclusterOutput } from './recluster';

/** Messages between the semantics thread and its callers. */
export type SemanticsRequest =
  | { id: number; op: 'embed'; texts: string[]; themes?: Array<string | null> }
  | ({ id: number; op: 'recluster' } & ReclusterInput)
  | { id: number; op: 'assign'; vectors: Float32Array; dims: number; sums: Float32Array; sizes: Int32Array; threshold: number };

export interface SemanticsResults {
  embed: { vectors: Float32Array; dims: number; denseDims: number; keywords: string[][]; version: string };
  recluster: ReclusterOutput;
  assign: Assignment;
}

export type SemanticsResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
