// npm run openapi: writes docs/openapi.json from the routes (a test fails when it is stale).
import { writeFile } from 'node:fs/promises';
import { documentText, openapiDocument } from './openapi-document.js';

const target = new URL('../../docs/openapi.json', import.meta.url);
await writeFile(target, documentText(await openapiDocument()));
process.stderr.write(`wrote ${target.pathname}\n`);
