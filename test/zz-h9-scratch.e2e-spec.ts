import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { startTestApp } from './support/app.js';
import { call } from './support/http.js';
it('dump', async () => {
  const t = await startTestApp();
  const r = await call(t.baseUrl, 'GET', '/openapi.json');
  writeFileSync('/tmp/h9/openapi.json', r.text);
  await t.close();
});
