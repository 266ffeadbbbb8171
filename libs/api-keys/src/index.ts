export { API_KEY_PERMISSIONS, type ApiKeyPermission, parsePermissions } from './permissions';
export { generateApiKey, hashApiKey, looksLikeApiKey } from './secret';
export { createApiKey, listApiKeys, revokeApiKey, authenticateApiKey, type ApiKeyPrincipal, ApiKeyError } from './repository';
