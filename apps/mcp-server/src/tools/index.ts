import type { ToolDefinition } from '../tool-kit';
import { addSource } from './add-source';
import { findSources } from './find-sources';
import { getProducts } from './get-products';
import { readSourceTool } from './read-source';
import { getOpportunities } from './opportunities';
import { seeUpdatedRoadmap } from './see-updated-roadmap';
import { addSignalsTool, updateSignalsTool } from './signals';
import { viewItem } from './view-item';
import { createShapingNoteTool, listShapingNotesTool, updateShapingNoteTool } from './shaping-notes';
import { findSkillsTool, readSkillsTool } from './skills';

/** Every tool the endpoint offers, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [getProducts, findSkillsTool, readSkillsTool, findSources, readSourceTool, addSource, addSignalsTool, updateSignalsTool, getOpportunities, viewItem, listShapingNotesTool, createShapingNoteTool, updateShapingNoteTool, seeUpdatedRoadmap] as unknown as ToolDefinition[];
