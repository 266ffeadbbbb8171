import { getOpportunity, getSignal, type SignalView } from '@loupe/evidence';
import type { ToolContext } from '../tool-kit';

const signalJson = (s: SignalView) => ({
  id: s.id, source_id: s.sourceId, product_id: s.productId, type: s.type, type_name: s.typeName, title: s.title, content: s.content,
  who_said_it: s.whoSaidIt, participant_id: s.participantId, created_at: s.createdAt.toISOString(), updated_at: s.updatedAt.toISOString(),
});

export async function viewSignal(ctx: ToolContext, id: string) {
  const signal = await getSignal(ctx.pool, ctx.principal.workspaceId, id);
  return signal ? signalJson(signal) : undefined;
}

export async function viewOpportunity(ctx: ToolContext, id: string) {
  const o = await getOpportunity(ctx.pool, ctx.principal.workspaceId, id);
  if (!o) return undefined;
  return {
    id: o.id, product_id: o.productId, title: o.title, subtitle: o.subtitle, type: o.type, created_at: o.createdAt.toISOString(),
    evidence_count: o.evidenceCount, unique_company_count: o.uniqueCompanyCount, evidence: o.evidence.map(signalJson),
  };
}
