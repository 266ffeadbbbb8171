export type { Connector, ReadContext, Routing, VendorPage } from './connector';
export { KeyringError, openCredentials, parseKeyring, rewrapDataKey, sealCredentials, type Keyring, type Sealed } from './envelope';
export { DEVELOPMENT_KEY_NAME, loadKeyring, rewrapConnectionKeys } from './keyring-source';
export { purgeConnectionSlice } from './purge';
export { CONNECTOR_KINDS, CONNECTORS } from './registry';
export {
  CONNECTION_STATUSES, connectionRecordIds, connectionView, deleteConnectionRow, findConnection, insertConnection, listConnectionRows, setPaused, updateConnectionRow,
  type ConnectionChange, type ConnectionRow, type ConnectionStatus, type NewConnection,
} from './store';
export { cancelWaitingSyncs, realSleep, scheduleActiveConnections, scheduleNextSync, syncConnection, type SyncDeps, type SyncOutcome } from './sync';
export { retryAfterMs, vendorGet, VendorAuthError, VendorRequestError, type VendorGet } from './vendor-http';
export { zendeskConnector, zendeskCredentialsSchema, zendeskSettingsSchema, type ZendeskCredentials, type ZendeskSettings } from './zendesk/connector';
export { gongConnector, gongCredentialsSchema, gongSettingsSchema, type GongCredentials, type GongSettings } from './gong/connector';
export { INTERCOM_DEFAULT_BASE_URL, INTERCOM_SETTLE_SECONDS, INTERCOM_VERSION, intercomConnector, intercomCredentialsSchema, intercomSettingsSchema, type IntercomCredentials, type IntercomSettings } from './intercom/connector';
export { slackConnector, slackCredentialsSchema, slackSettingsSchema, type SlackCredentials, type SlackSettings } from './slack/connector';
