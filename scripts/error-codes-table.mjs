// Part of `npm run openapi`: writes the errors guide's table of problem codes from the registry
// (built into dist/), between the markers of docs/integrators/errors.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorCodesTable } from '../dist/src/common/http/error-codes.js';

const GUIDE = resolve(import.meta.dirname, '../docs/integrators/errors.md');
const BETWEEN = /(<!-- error-codes:start[^>]*-->\n)[\s\S]*?(\n<!-- error-codes:end -->)/;

const guide = readFileSync(GUIDE, 'utf8');
if (!BETWEEN.test(guide)) throw new Error(`${GUIDE} has no error-codes markers`);
writeFileSync(
  GUIDE,
  guide.replace(BETWEEN, (_, start, end) => start + errorCodesTable() + end),
);
