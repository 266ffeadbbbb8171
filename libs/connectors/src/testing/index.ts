export { FakeZendesk, type FakeComment, type FakeOrganization, type FakeRequest, type FakeTicket, type FakeUser, type FakeZendeskOptions } from './fake-zendesk';
export { FAKE_SLACK_CUSTOMER_TEAM, FAKE_SLACK_TEAM, FakeSlack, type FakeSlackChannel, type FakeSlackFile, type FakeSlackMessage, type FakeSlackOptions, type FakeSlackRequest, type FakeSlackUser } from './fake-slack';
