// npm start: everything on one machine, no external server needed.
import { loadConfig, opsListenerConfig, runMain, withOpsServer } from '@media/platform';
import { startStack } from '@media/stack';

runMain(async () => {
  // The API reference and the operations listener are served beside the API (a gateway or a
  // service started alone serves them only when asked).
  const env = { DOCS_PORT: '8082', METRICS_PORT: '9464', ...process.env };
  // One operations listener for the whole process: ready when all five services are.
  const started = await startStack(env);
  const stack = await withOpsServer(started, loadConfig(opsListenerConfig, env), started.urls);
  const lines = [
    '',
    `Media service is up.`,
    `  API (gateway):   ${stack.gatewayUrl}`,
    ...(stack.gateway.docsUrl ? [`  API reference:   ${stack.gateway.docsUrl}  (OpenAPI: ${stack.gateway.docsUrl}/openapi.json)`] : []),
    ...(stack.opsUrl ? [`  metrics, health: ${stack.opsUrl}/metrics, /livez, /readyz`] : []),
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
