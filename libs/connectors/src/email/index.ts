export {
  addressTarget, domainAllowed, domainOf, forwardingAddress, forwardingToken, listProjectAddresses, MAX_SENDER_DOMAINS, parseDomainList, projectAddressToken,
  senderDomains, setSenderDomains, type AddressTarget, type ProjectAddress, type SenderDomains,
} from './addresses';
export { forwardedInText, htmlText, parseForward, parseHeaderDate, peopleOfHeader, withoutForwardPrefix, type ForwardedMessage, type MailFile, type MailPerson, type ParsedForward } from './parse';
export { createForwardingReceiver, FORWARDING_SOURCE, forwardIdentity, forwardThreadId, recordOfForward, type ForwardingDeps, type ForwardingReceiver, type ForwardOutcome, type StoredFile } from './receive';
