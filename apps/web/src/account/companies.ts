import { Router } from 'express';
import { listProducts } from '@loupe/workspaces';
import {
  COMPANY_SORTS, companyFacets, decodeCompanyCursor, encodeCompanyCursor, getCompanyDetail, listCompanyPage, type CompanySort,
} from './company-queries';
import { pages, renderAccount, str, type AccountDeps, type Runtime } from './context';
import { TYPE_LABELS } from './sources';

export const COMPANIES_PAGE = 25;
/** The people, opportunities, sources and signals shown on a company's page, each. */
export const COMPANY_LISTS = 20;

/**
 * Companies (issue 44): who the evidence comes from, as the team's CRM knows them (imported through
 * the API or `loupe companies upload`). The workspace's companies biggest ARR (or most evidence) first,
 * searched by name or domain and filtered by segment and stage; one company with its people, the
 * opportunities its signals are in, and its latest sources and signals.
 */
export function companyPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  router.get('/account/w/:ws/companies', inWorkspace(async (ctx, req, res) => {
    const facets = await companyFacets(ctx.rt.pool, ctx.workspace.id);
    const sort: CompanySort = (COMPANY_SORTS as readonly string[]).includes(str(req.query.sort)) ? (str(req.query.sort) as CompanySort) : 'arr';
    const filter = {
      q: str(req.query.q).trim().slice(0, 200),
      segment: facets.segments.includes(str(req.query.segment)) ? str(req.query.segment) : '',
      stage: facets.stages.includes(str(req.query.stage)) ? str(req.query.stage) : '',
    };
    const after = decodeCompanyCursor(str(req.query.after), sort);
    const page = facets.total
      ? await listCompanyPage(ctx.rt.pool, ctx.workspace.id, { sort, filter, limit: COMPANIES_PAGE, after })
      : { items: [] };
    const keep = new URLSearchParams(Object.entries({ ...filter, sort: sort === 'arr' ? '' : sort }).filter(([, v]) => v));
    const base = `/account/w/${ctx.workspace.id}/companies`;
    renderAccount(res, 'account-companies', ctx, {
      title: 'Companies', section: 'companies', facets, filter, sort, items: page.items, paged: Boolean(after),
      filtered: Boolean(filter.q || filter.segment || filter.stage),
      firstLink: `${base}${keep.size ? `?${keep}` : ''}`,
      nextLink: page.next ? `${base}?${new URLSearchParams([...keep, ['after', encodeCompanyCursor(page.next)]])}` : undefined,
    });
  }));

  router.get('/account/w/:ws/companies/:id', inWorkspace(async (ctx, req, res) => {
    const company = await getCompanyDetail(ctx.rt.pool, ctx.workspace.id, String(req.params.id), COMPANY_LISTS);
    if (!company) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'Company not found', section: 'companies', back: `/account/w/${ctx.workspace.id}/companies`, backLabel: 'Back to companies',
        message: 'This company does not exist in this workspace: it may have been deleted from the CRM import.',
      }, 404);
    }
    const products = await listProducts(deps.db, ctx.workspace.id);
    renderAccount(res, 'account-company', ctx, {
      title: company.name, section: 'companies', company, typeLabels: TYPE_LABELS,
      attributes: Object.entries(company.attributes).sort(([a], [b]) => a.localeCompare(b)),
      productName: products.length > 1 ? new Map(products.map((p) => [p.id, p.name])) : undefined,
    });
  }));

  return router;
}
