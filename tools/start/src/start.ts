// npm start: everything on one machine, no external server needed.
import { runMain } from '@media/platform';
import { startStack } from '@media/stack';

runMain(async () => {
  // The API reference is served beside the API (a gateway started alone serves none by default).
  const stack = await startStack({ DOCS_PORT: '8082', ...process.env });
  const lines = [
    '',
    `Media service is up.`,
    `  API (gateway):   ${stack.gatewayUrl}`,
    ...(stack.gateway.docsUrl ? [`  API reference:   ${stack.gateway.docsUrl}  (OpenAPI: ${stack.gateway.docsUrl}/openapi.json)`] : []),
    // Local-disk signed URLs point here (STORAGE_HTTP_PORT, PUBLIC_BASE_URL); S3's point at S3.
    ...(stack.publicBaseUrl ? [`  signed URLs:     ${stack.publicBaseUrl}`] : []),
    `  data directory:  ${stack.dataDir}`,
    `  services:        ${Object.entries(stack.urls)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  console (admin): ${stack.adminUrl}  ->  npm run -s admin -- account create`,
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stderr.write(lines.join('\n'));
  return stack;
}, 'media-service');
