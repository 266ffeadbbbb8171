export * from './schemas';
export { mayHoldUnstorable } from './raw-json';
export { parseBody, itemOfRecord, bodyKindOf, BodyError, type BodyItem, type BodyKind } from './parse-body';
export { validateItems, checkRequestRules, dedupKeyOf, canonicalVendorIds, type AcceptedRecord, type ValidationResult, type RequestRuleViolation } from './validate';
export { recordJsonSchema, openApiDocument } from './openapi';
export * from './company-schemas';
export * from './connection-schemas';
export { emailForwardingSchema, type EmailForwardingView } from './openapi-email-forwarding';
