import type { ToolDefinition } from '../tool-kit';
import { addSource } from './add-source';
import { findSources } from './find-sources';
import { getProducts } from './get-products';
import { readSourceTool } from './read-source';
import { seeUpdatedRoadmap } from './see-updated-roadmap';

/** Every tool the endpoint offers, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [getProducts, findSources, readSourceTool, addSource, seeUpdatedRoadmap] as unknown as ToolDefinition[];
