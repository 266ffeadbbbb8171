// What other projects' tests use: a second OpenID Connect provider and a cookie jar.
export { startTestIdp, type TestIdp, type TestPerson } from './test-idp';
export { CookieJar } from '@loupe/browser-testing';
