// The network fixture of the URL tests: an HTTPS server on 127.0.0.2, which the stack treats as
// public (URL_ALLOWLIST_CIDRS) and trusts (URL_CA_FILE), and a canary on 127.0.0.1 that must never
// be contacted. `env` is what startTestStack needs to reach the former.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCanaryServer, startHttpsServer } from '@media/testkit';

export type Targets = {
  https: Awaited<ReturnType<typeof startHttpsServer>>;
  canary: Awaited<ReturnType<typeof startCanaryServer>>;
  env: Record<string, string>;
  stop(): Promise<void>;
};

type Handler = (req: IncomingMessage, res: ServerResponse, canaryPort: number) => void;

export async function startUrlTargets(dir: string, handler: Handler): Promise<Targets> {
  const canary = await startCanaryServer('127.0.0.1');
  const https = await startHttpsServer({ host: '127.0.0.2', handler: (req, res) => handler(req, res, canary.port) });
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, https.ca);
  return {
    https,
    canary,
    env: { URL_ALLOWLIST_CIDRS: '127.0.0.2/32', URL_CA_FILE: caFile },
    async stop() {
      await https.stop();
      await canary.stop();
    },
  };
}

/** Routes the URL-input tests share; answers and returns true when it handled the request. */
export function mediaRoutes(mp4: Buffer, req: IncomingMessage, res: ServerResponse, canaryPort: number): boolean {
  const redirect = (host: string) => res.writeHead(302, { location: `https://${host}:${canaryPort}/x.mp4` }).end();
  switch (req.url) {
    case '/clip.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length }).end(mp4);
      return true;
    case '/huge.mp4':
      res.writeHead(200, { 'content-length': '6000000000' }).end();
      return true;
    case '/to-canary':
      redirect('127.0.0.1');
      return true;
    case '/to-localhost':
      redirect('localhost');
      return true;
  }
  return false;
}
