export { ThirdPartyError, ThirdPartyServerError, type ThirdPartyFailure } from './errors';
export {
  addThirdPartyServer, listThirdPartyServers, removeThirdPartyServer, slugFor, type AddThirdPartyServer, type ThirdPartyServer,
} from './registry';
export {
  createThirdPartyGateway, NAMESPACE_SEPARATOR, type GatewayLog, type ProxiedTool, type ThirdPartyGateway, type ThirdPartyGatewayDeps,
} from './gateway';
export { HEADER_KEY_NAME } from './header-secret';
