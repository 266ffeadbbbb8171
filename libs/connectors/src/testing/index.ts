export { FakeZendesk, type FakeComment, type FakeOrganization, type FakeRequest, type FakeTicket, type FakeUser, type FakeZendeskOptions } from './fake-zendesk';
export { FakeGong, type FakeCall, type FakeGongOptions, type FakeGongRequest, type FakeMonologue, type FakeParty } from './fake-gong';
export { FAKE_SLACK_CUSTOMER_TEAM, FAKE_SLACK_TEAM, FakeSlack, type FakeSlackChannel, type FakeSlackFile, type FakeSlackMessage, type FakeSlackOptions, type FakeSlackRequest, type FakeSlackUser } from './fake-slack';
export { FakeIntercom, type FakeIntercomCompany, type FakeIntercomContact, type FakeIntercomConversation, type FakeIntercomOptions, type FakeIntercomPart, type FakeIntercomRequest } from './fake-intercom';
