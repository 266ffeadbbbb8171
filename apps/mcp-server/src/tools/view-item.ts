import { z } from 'zod';
import { getShapingNote, getVersion, listVersions, shapingStatusDisplayName, ShapingNoteNotFoundError, ShapingVersionNotFoundError } from '@loupe/shaping';
import { readSource } from '@loupe/sources';
import { blocks, facts, next, oneLine, UNTRUSTED, UNTRUSTED_NOTE, when } from '../render';
import { nameText } from '../schemas';
import { defineTool, ToolError, type ToolContext } from '../tool-kit';
import { citationsOf, noteView, renderCitations } from './shaping-notes';
import { viewCompany, viewOpportunity, viewSignal } from './evidence-views';

export const ITEM_TYPES = ['signal', 'opportunity', 'source', 'shaping_note', 'company'] as const;
type ItemType = (typeof ITEM_TYPES)[number];

/** What an id's prefix says it is, to point a model that passed the wrong item_type at the right one. */
const PREFIXES: Record<string, ItemType> = { sig_: 'signal', opp_: 'opportunity', src_: 'source', shn_: 'shaping_note' };

function notFound(type: ItemType, id: string) {
  const looksLike = Object.entries(PREFIXES).find(([prefix]) => id.startsWith(prefix))?.[1];
  if (type === 'company') {
    return new ToolError(`company ${id} does not exist or you are not allowed to access it. Pass a company's external id (the team's CRM id) or its id; get_opportunities(company) also takes a name.`);
  }
  const hint = looksLike && looksLike !== type
    ? ` The id starts with ${id.slice(0, 4)}: it looks like ${looksLike === 'opportunity' ? 'an' : 'a'} ${looksLike}; call view_item with item_type "${looksLike}".`
    : ' Use find_sources, get_opportunities, list_shaping_notes or the ids other tools returned.';
  return new ToolError(`${type} ${id} does not exist or you are not allowed to access it.${hint}`);
}

async function viewSource(ctx: ToolContext, id: string) {
  const page = await readSource(ctx.pool, ctx.principal.workspaceId, id, { limit: 20 });
  if (!page) return undefined;
  return {
    ...page.source, total_segments: page.total_segments, ...UNTRUSTED,
    preview: page.segments.map((s) => ({ position: s.position, speaker: s.speaker, heading: s.heading, text: s.text.slice(0, 500) })),
  };
}

async function viewNote(ctx: ToolContext, id: string, version?: number) {
  try {
    const note = await getShapingNote(ctx.pool, ctx.principal.workspaceId, id);
    const versions = (await listVersions(ctx.pool, ctx.principal.workspaceId, id)).map((v) => ({ version: v.version, title: v.title, status: v.status, created_at: v.createdAt.toISOString() }));
    if (version === undefined || version === note.version) return { ...noteView(note), versions, citations: await citationsOf(ctx, note.content) };
    if (!versions.some((v) => v.version === version)) {
      throw new ToolError(`Version ${version} of shaping note ${id} does not exist: it has versions ${versions[0]?.version ?? 1} to ${note.version} (listed by view_item without version).`);
    }
    const old = await getVersion(ctx.pool, ctx.principal.workspaceId, id, version);
    return {
      id: note.id, product_id: note.productId, current_version: note.version, version: old.version, title: old.title, subtitle: old.subtitle, content: old.content,
      status: old.status, status_name: shapingStatusDisplayName(old.status), tags: old.tags, created_at: note.createdAt.toISOString(), version_created_at: old.createdAt.toISOString(),
      versions, citations: await citationsOf(ctx, old.content),
    };
  } catch (error) {
    if (error instanceof ShapingNoteNotFoundError) return undefined;
    if (error instanceof ShapingVersionNotFoundError) throw new ToolError(`${error.message}: view_item without version lists the versions.`);
    throw error;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape depends on item_type; each renderer reads the fields its loader above wrote
type Item = Record<string, any>;

/** A signal's quotes, one line each: found at a segment (and by whom), or not found in the source. */
function quoteList(s: Item): string | undefined {
  if (!s.quotes) return s.quotes_verified === undefined ? 'Quotes: not checked (written before quotes were checked).' : undefined;
  if (!s.quotes.length) return undefined;
  return `## Quotes (${s.quotes_verified} verified)\n${(s.quotes as Item[]).map((q) => q.verified
    ? `- verified, segment ${q.position}${q.speaker ? ` (${oneLine(q.speaker, 100)}${q.other_speaker ? ', not who_said_it' : ''})` : ''}: "${oneLine(q.text, 300)}"`
    : `- NOT FOUND in the source: "${oneLine(q.text, 300)}"`).join('\n')}`;
}
const verifiedMark = (s: Item) => (s.quotes_verified && s.quotes_verified !== 'no_quote' ? `, quotes ${s.quotes_verified} verified` : '');

const renderers: Record<ItemType, (i: Item) => string> = {
  signal: (s) => blocks(
    `# Signal: ${oneLine(s.title, 200)} \`${s.id}\``,
    facts([
      ['Type', s.type_name], ['Who', s.who_said_it], ['Company', s.company ? `${oneLine(s.company.name, 150)} \`${s.company.external_id}\`` : undefined],
      ['Said', when(s.created_at)], ['Theme', s.theme],
      ['Source', `${s.source_title ? `${oneLine(s.source_title, 150)} ` : ''}\`${s.source_id}\``],
      ['Opportunity', s.opportunity ? `${oneLine(s.opportunity.title ?? '', 150)} \`${s.opportunity.id}\`` : 'not placed yet'],
    ]),
    UNTRUSTED_NOTE,
    s.content,
    quoteList(s),
  ) + next([`read_source(source_id: "${s.source_id}") for its context`, 'update_signals to correct it']),
  opportunity: (o) => {
    const rows = (o.evidence as Item[]).map((s, i) =>
      `${o.evidence_offset + i + 1}. **${oneLine(s.title, 200)}** \`${s.id}\` (${s.type_name}${s.who_said_it ? `, ${s.who_said_it}` : ''}${s.company ? `, ${oneLine(s.company, 100)}` : ''}, ${when(s.created_at)}, source \`${s.source_id}\`${verifiedMark(s)})\n   ${oneLine(s.content, 1600)}`);
    const shown = o.evidence_returned
      ? `Evidence ${o.evidence_offset + 1}–${o.evidence_offset + o.evidence_returned} of ${o.evidence_total}, newest first.`
      : o.evidence_total && o.evidence_offset >= o.evidence_total
        ? `offset ${o.evidence_offset} is past the end: it has ${o.evidence_total} signals (offsets 0–${o.evidence_total - 1}).`
        : 'No evidence.';
    const steps = [];
    if (o.evidence_next_offset !== undefined) steps.push(`more: view_item with offset ${o.evidence_next_offset}`);
    steps.push('read_source(source_id) for a signal\'s context', 'create_shaping_note to shape it');
    return blocks(
      `# Opportunity: ${oneLine(o.title, 200)} \`${o.id}\``,
      o.subtitle,
      facts([['Type', o.type], ['Evidence', `${o.evidence_count} signal${o.evidence_count === 1 ? '' : 's'} from ${o.unique_company_count} compan${o.unique_company_count === 1 ? 'y' : 'ies'}`], ['Revenue', `${o.revenue.toLocaleString('en-US')} (ARR of ${o.impact.resolved_companies} known compan${o.impact.resolved_companies === 1 ? 'y' : 'ies'})`],
        ['Segments', (o.impact.segments as Item[]).map((x) => `${x.value} ${x.companies} (${x.revenue.toLocaleString('en-US')})`).join(', ') || undefined],
        ['Verified quotes', `${o.verified_signals} of ${o.evidence_count} signals (${Math.round(o.verified_share * 100)}%)`],
        ['Nearest renewal', o.nearest_renewal], ['Keywords', o.keywords], ['Updated', when(o.updated_at)]]),
      shown,
      rows.length ? UNTRUSTED_NOTE : undefined,
      rows.join('\n'),
      o.truncated_content ? `Long signals are cut; ${o.truncated_content.replace(/^long signals are cut: /, '')}.` : undefined,
    ) + next(steps);
  },
  source: (s) => blocks(
    `# Source: ${oneLine(s.title, 200)} \`${s.id}\``,
    facts([['Type', `${s.source_type} (${s.nature})`], ['When', when(s.occurred_at)], ['Status', s.status], ['Segments', s.total_segments], ['Tags', s.tags], ['Product', s.product_id]]),
    (s.preview as Item[]).length ? UNTRUSTED_NOTE : undefined,
    (s.preview as Item[]).map((p) => `${p.heading ? `### ${p.heading}\n` : ''}[${p.position}]${p.speaker ? ` ${p.speaker}:` : ''} ${p.text}`).join('\n'),
  ) + next([`read_source(source_id: "${s.id}") for the whole content`]),
  company: (c) => {
    const money = (n: number) => n.toLocaleString('en-US');
    const opportunities = (c.opportunities as Item[]).map((o, i) =>
      `${i + 1}. **${oneLine(o.title, 200)}** \`${o.id}\`: ${o.signals} of its ${o.evidence_count} signal${o.evidence_count === 1 ? '' : 's'} (${Math.round(o.share * 100)}%)`);
    const sources = (c.sources as Item[]).map((s) => `- **${oneLine(s.title, 200)}** \`${s.id}\` (${s.source_type}, ${when(s.occurred_at)}, ${s.signals} signal${s.signals === 1 ? '' : 's'})`);
    const signals = (c.signals as Item[]).map((s) => `- **${oneLine(s.title, 200)}** \`${s.id}\` (${s.type}${s.who_said_it ? `, ${oneLine(s.who_said_it, 80)}` : ''}, ${when(s.created_at)})`);
    const attributes = Object.entries(c.attributes ?? {}).map(([k, v]) => `${k}: ${String(v)}`);
    return blocks(
      `# Company: ${oneLine(c.name, 200)} \`${c.external_id}\``,
      facts([
        ['ARR', c.arr === undefined ? undefined : money(c.arr)], ['Segment', c.segment], ['Plan', c.plan], ['Stage', c.stage], ['Renewal', c.renewal_date],
        ['Domains', c.domains], ['Attributes', attributes.length ? attributes.join('; ') : undefined], ['Evidence', `${c.signal_count} signal${c.signal_count === 1 ? '' : 's'}`],
      ]),
      `## Opportunities, by its share of their signals\n${opportunities.join('\n') || 'None yet.'}`,
      `## Latest sources\n${sources.join('\n') || 'None.'}`,
      signals.length ? UNTRUSTED_NOTE : undefined,
      `## Latest signals\n${signals.join('\n') || 'None.'}`,
    ) + next(['view_item(item_type: "opportunity") for an opportunity\'s evidence', 'find_sources(company) for all its sources']);
  },
  shaping_note: (n) => {
    const old = n.current_version !== undefined;
    return blocks(
      `# ${oneLine(n.title, 200)} \`${n.id}\``,
      old ? `**Version ${n.version}** of ${n.current_version} (an earlier version, written ${when(n.version_created_at)}; not the current text).` : undefined,
      facts([['Status', n.status_name ?? 'outside the pipeline'], ['Subtitle', n.subtitle], ['Tags', n.tags], ['Version', old ? undefined : n.version], ['Updated', old ? undefined : when(n.updated_at)]]),
      n.content,
      renderCitations(n.citations),
      `## Versions\n${(n.versions as Item[]).map((v) => `- ${v.version}: ${oneLine(v.title, 120)} (${v.status ?? 'outside the pipeline'}, ${when(v.created_at)})`).join('\n')}`,
    ) + next(old
      ? [`update_shaping_note(note_id: "${n.id}", restore_version: ${n.version}) to make this version current again`]
      : ['update_shaping_note(note_id, …) to change it', 'view_item with version: N to read an earlier version']);
  },
};

export const viewItem = defineTool({
  name: 'view_item',
  title: 'View one item',
  description:
    'One item by id: a signal, an opportunity with its evidence (paged), a source\'s start, a shaping note with its versions, a company. ' +
    'DO NOT USE to read a source (read_source) or search (find_sources).',
  inputSchema: {
    item_id: nameText('item_id', 128).describe('sig_, opp_, src_, shn_, company id.'),
    item_type: z.enum(ITEM_TYPES).describe('What the id is.'),
    offset: z.number().int().min(0).optional().describe('Opportunity: evidence_next_offset.'),
    version: z.number().int().min(1).optional().describe('Shaping note: an earlier version.'),
  },
  outputSchema: { item_type: z.enum(ITEM_TYPES), item: z.record(z.string(), z.unknown()) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    if (args.version !== undefined && args.item_type !== 'shaping_note') throw new ToolError('version is for shaping notes only: versions are kept for shaping notes.');
    if (args.offset !== undefined && args.item_type !== 'opportunity') throw new ToolError('offset is for opportunities only (their evidence); read_source pages a source.');
    const loaders: Record<ItemType, (ctx: ToolContext, id: string) => Promise<Record<string, unknown> | undefined>> = {
      source: viewSource,
      shaping_note: (c, id) => viewNote(c, id, args.version),
      signal: viewSignal,
      opportunity: (c, id) => viewOpportunity(c, id, args.offset ?? 0),
      company: viewCompany,
    };
    const item = await loaders[args.item_type](ctx, args.item_id);
    if (!item) throw notFound(args.item_type, args.item_id);
    return { item_type: args.item_type, item };
  },
  render: (r) => renderers[r.item_type](r.item),
});
