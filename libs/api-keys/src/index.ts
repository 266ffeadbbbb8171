export { API_KEY_PERMISSIONS, type ApiKeyPermission, parsePermissions } from './permissions';
export { generateApiKey, hashApiKey, looksLikeApiKey } from './secret';
export { createApiKey, listApiKeys, revokeApiKey, authenticateApiKey, apiKeyPrincipal, type ApiKeyPrincipal, type ApiKeyRow, ApiKeyError } from './repository';
