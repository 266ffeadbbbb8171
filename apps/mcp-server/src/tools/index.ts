import type { ToolDefinition } from '../tool-kit';
import { addSource } from './add-source';
import { findSources } from './find-sources';
import { getProducts } from './get-products';
import { readSourceTool } from './read-source';
import { seeUpdatedRoadmap } from './see-updated-roadmap';
import { createShapingNoteTool, updateShapingNoteTool } from './shaping-notes';
import { findSkillsTool, readSkillsTool } from './skills';

/** Every tool the endpoint offers, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [getProducts, findSkillsTool, readSkillsTool, findSources, readSourceTool, addSource, createShapingNoteTool, updateShapingNoteTool, seeUpdatedRoadmap] as unknown as ToolDefinition[];
