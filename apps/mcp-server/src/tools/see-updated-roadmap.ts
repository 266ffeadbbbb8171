import { z } from 'zod';
import { defineTool, ToolError } from '../tool-kit';

/** A removed tool that still answers, naming its replacement (spec 7.4). */
export const seeUpdatedRoadmap = defineTool({
  name: 'see_updated_roadmap',
  title: 'Removed: use get_opportunities',
  description: 'Removed. Use get_opportunities(product_id) for the opportunities built from customer evidence.',
  inputSchema: { product_id: z.string().optional() },
  outputSchema: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  free: true,
  // Not advertised any more (issue 24 item 2); a client that still calls it is told what replaced it.
  hidden: true,
  async handler() {
    throw new ToolError('see_updated_roadmap was removed: call get_opportunities(product_id) instead, after get_products if you need the product id.');
  },
});
