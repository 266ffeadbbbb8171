/**
 * Customer evidence for the demo workspace, so an assistant connected on the first start has real-looking
 * sources to explore: calls, a support chat, an email thread and meeting notes about one product.
 */
export function demoRecords(productId: string, projectId: string, now: number) {
  const at = (daysAgo: number) => `${new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 19)}Z`;
  const base = (type: string, id: string, daysAgo: number) => ({
    _type: type,
    _schema_version: '1.0.0',
    _event_at: at(daysAgo),
    _vendor_ids: { demo_seed: id },
    _product_id: productId,
    _project_ids: [projectId],
    _nature: 'evidence',
  });
  return [
    {
      ...base('call_transcription', 'globex-call', 6),
      _participants: [
        { id: 'ana@globex.com', role: 'external', name: 'Ana Ruiz', email: 'ana@globex.com' },
        { id: 'sam@loupe.demo', role: 'internal', name: 'Sam Lee', email: 'sam@loupe.demo' },
      ],
      data: {
        title: 'Quarterly review with Globex',
        transcript: [
          { speaker: 'Sam Lee', text: 'Thanks for making time. How has the quarter-end reporting gone?' },
          { speaker: 'Ana Ruiz', text: 'Honestly, exporting the quarterly report to Excel is painful. It takes about twenty minutes and times out half the time.' },
          { speaker: 'Sam Lee', text: 'What do you do when it times out?' },
          { speaker: 'Ana Ruiz', text: 'We split it by region and export six times, then glue the files together by hand. Our finance team hates it.' },
          { speaker: 'Ana Ruiz', text: 'If we could schedule the export overnight and get it by email, that alone would save us a day each quarter.' },
          { speaker: 'Sam Lee', text: 'Anything else on your list?' },
          { speaker: 'Ana Ruiz', text: 'Our IT team keeps asking when we can log in with our company SSO. Right now everyone has a separate password.' },
        ],
      },
    },
    {
      ...base('conversation', 'initech-chat', 4),
      _participants: [{ id: 'bill@initech.com', role: 'external', name: 'Bill Lumbergh', email: 'bill@initech.com' }],
      data: {
        title: 'Support chat: SAML login',
        messages: [
          { from: 'Bill Lumbergh', text: 'Hi, do you support SAML single sign-on? Our security policy requires it for every tool.' },
          { from: 'Support', text: 'Not yet, it is on our roadmap. Which identity provider do you use?' },
          { from: 'Bill Lumbergh', text: 'Okta. Without SSO we cannot roll this out beyond the pilot team of five people.' },
        ],
      },
    },
    {
      ...base('email_thread', 'umbrella-email', 3),
      _participants: [{ id: 'claire@umbrella.co', role: 'external', name: 'Claire Redfield', email: 'claire@umbrella.co' }],
      data: {
        subject: 'CSV export keeps failing',
        messages: [
          { from: 'Claire Redfield', text: 'The CSV export of the usage report failed again this morning. It seems to break once the report has more than a few thousand rows.' },
          { from: 'Sam Lee', text: 'Sorry about that. Could you tell us roughly how many rows you export?' },
          { from: 'Claire Redfield', text: 'Around 40,000. We need the full data set every Monday for our board pack; a scheduled export would be ideal.' },
        ],
      },
    },
    {
      ...base('meeting_notes', 'hooli-onboarding', 2),
      _participants: [{ id: 'gavin@hooli.xyz', role: 'external', name: 'Gavin Belson', email: 'gavin@hooli.xyz' }],
      data: {
        title: 'Onboarding session with Hooli',
        content:
          '# Onboarding session with Hooli\n\n## What went well\n- The dashboard templates were understood quickly.\n\n' +
          '## Problems\n- The mobile app crashed twice when Gavin uploaded a photo of a receipt.\n' +
          '- Inviting teammates was confusing: the invite button is hidden in settings.\n\n' +
          '## Requests\n- "We would pay extra for SSO with Google Workspace."',
      },
    },
    {
      ...base('call', 'soylent-call', 1),
      _participants: [{ id: 'tom@soylent.com', role: 'external', name: 'Tom Thorn', email: 'tom@soylent.com' }],
      data: {
        title: 'Procurement call with Soylent',
        transcript: [
          { speaker: 'Tom Thorn', text: 'Procurement will only sign if the tool supports single sign-on through Okta and offers an audit log.' },
          { speaker: 'Sam Lee', text: 'Understood. Is the audit log a hard requirement for the first year?' },
          { speaker: 'Tom Thorn', text: 'SSO is a hard requirement. The audit log can follow within six months.' },
          { speaker: 'Tom Thorn', text: 'Also, our analysts export everything to spreadsheets. Slow exports would be a deal breaker for them.' },
        ],
      },
    },
  ];
}

/**
 * The demo's customers, as a CRM would send them: the companies behind the demo evidence's speakers,
 * so the opportunities of a first start are weighed by revenue, segment and renewal at once.
 */
export function demoCompanies(now: number) {
  const inDays = (days: number) => new Date(now + days * 86_400_000).toISOString().slice(0, 10);
  return [
    { external_id: 'demo-hooli', name: 'Hooli', domains: ['hooli.xyz'], arr: 250_000, plan: 'Enterprise', segment: 'Enterprise', stage: 'customer', renewal_date: inDays(45) },
    { external_id: 'demo-globex', name: 'Globex', domains: ['globex.com'], arr: 120_000, plan: 'Scale', segment: 'Enterprise', stage: 'customer', renewal_date: inDays(120) },
    { external_id: 'demo-initech', name: 'Initech', domains: ['initech.com'], arr: 18_000, plan: 'Team', segment: 'Mid-market', stage: 'customer', renewal_date: inDays(200) },
    { external_id: 'demo-umbrella', name: 'Umbrella', domains: ['umbrella.co'], arr: 36_000, plan: 'Team', segment: 'Mid-market', stage: 'trial', renewal_date: null },
    { external_id: 'demo-soylent', name: 'Soylent', domains: ['soylent.com'], arr: 4_800, plan: 'Starter', segment: 'SMB', stage: 'customer', renewal_date: inDays(300) },
  ];
}
