export { FakeZendesk, type FakeComment, type FakeOrganization, type FakeRequest, type FakeTicket, type FakeUser, type FakeZendeskOptions } from './fake-zendesk';
