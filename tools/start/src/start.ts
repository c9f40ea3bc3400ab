// npm start: everything on one machine, no external server needed.
import { explainListenFailure, loadConfig, opsListenerConfig, runMain, withOpsServer } from '@media/platform';
import { listenerPorts, startStack } from '@media/stack';

runMain(async () => {
  // The API reference, the web console and the operations listener are served beside the API (a
  // gateway or a service started alone serves them only when asked).
  const env: Record<string, string | undefined> = { DOCS_PORT: '8082', METRICS_PORT: '9464', CONSOLE_PORT: '8083', ...process.env };
  // The 403 texts and login links name the console where this machine serves it.
  if (!env.CONSOLE_URL && env.CONSOLE_PORT && env.CONSOLE_PORT !== '0') env.CONSOLE_URL = `http://localhost:${env.CONSOLE_PORT}`;
  // One operations listener for the whole process: ready when all five services are.
  const started = await startStack(env);
  const stack = await withOpsServer(started, loadConfig(opsListenerConfig, env), started.urls).catch((err) => {
    throw explainListenFailure(err, listenerPorts(env));
  });
  const lines = [
    '',
    `Media service is up.`,
    `  API (gateway):   ${stack.gatewayUrl}`,
    ...(stack.gateway.docsUrl ? [`  API reference:   ${stack.gateway.docsUrl}  (OpenAPI: ${stack.gateway.docsUrl}/openapi.json)`] : []),
    ...(stack.consoleUrl ? [`  web console:     ${stack.consoleUrl}  (sign in: npm run -s admin -- account login-link <account_id>)`] : []),
    ...(stack.opsUrl ? [`  metrics, health: ${stack.opsUrl}/metrics, /livez, /readyz`] : []),
    // Local-disk signed URLs point here (STORAGE_HTTP_PORT, PUBLIC_BASE_URL); S3's point at S3.
    ...(stack.publicBaseUrl ? [`  signed URLs:     ${stack.publicBaseUrl}`] : []),
    `  data directory:  ${stack.dataDir}`,
    `  services:        ${Object.entries(stack.urls)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `  admin listener:  ${stack.adminUrl}  ->  npm run -s admin -- account create`,
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stderr.write(lines.join('\n'));
  return stack;
}, 'media-service');
