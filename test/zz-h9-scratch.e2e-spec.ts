import { it } from 'vitest';
import { startTestApp } from './support/app.js';
import { createCaller } from './support/factories.js';
it('dump', async () => {
  const t = await startTestApp();
  const c = await createCaller(t.app);
  for (const body of ['{"name":' + '['.repeat(2000) + ']'.repeat(2000) + '}', '{"name":"x","endpoint_url":"https://a.invalid/","events":["*"],"__proto__":{"a":1}}']) {
    const r = await fetch(`${t.baseUrl}/api/v1/webhooks`, { method: 'POST', headers: { authorization: c.auth, 'content-type': 'application/json' }, body });
    console.log(r.status, await r.text());
  }
  console.log(t.logs.filter((l) => l.includes('unhandled')).map((l) => l.slice(0, 3000)).join('\n'));
  await t.close();
});
