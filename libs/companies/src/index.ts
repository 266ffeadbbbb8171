export { FREE_MAIL_DOMAINS, isFreeMailDomain } from './free-mail';
export { BatchBodyError, describeIssues, parseBatchBody, validateBatchItems, type BatchBodyKind, type RawItem } from './body';
export {
  companyView, deleteCompany, deletePerson, DirectoryCursorError, getCompany, getPerson, listCompanies, listPeople, personView, upsertCompanies, upsertPeople,
  type DirectoryDeps, type Page, type UpsertOutcome,
} from './store';
