// The webhooks' receiver: HTTPS on 127.0.0.2 with a certificate made at start (testkit's), which
// the cluster's processes trust (URL_CA_FILE) and count as public (URL_ALLOWLIST_CIDRS), as the
// service's own webhook tests do. It records every delivery and answers 200.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startHttpsServer } from '@media/testkit';
import type { WebhookDelivery } from './record.js';

export const RECEIVER_HOST = '127.0.0.2';

export interface Receiver {
  /** The webhook URL for an account's jobs. */
  urlFor(account: string): string;
  deliveries: WebhookDelivery[];
  /** What the cluster's processes need to deliver here. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startReceiver(dir: string, now: () => number = Date.now): Promise<Receiver> {
  const deliveries: WebhookDelivery[] = [];
  const server = await startHttpsServer({
    host: RECEIVER_HOST,
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const account = (req.url ?? '').split('/')[2] ?? '';
        deliveries.push({ account, atMs: now(), headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    },
  });
  const caFile = join(dir, 'receiver-ca.pem');
  await writeFile(caFile, server.ca);
  return {
    urlFor: (account) => `${server.url}/hook/${account}`,
    deliveries,
    env: { URL_ALLOWLIST_CIDRS: `${RECEIVER_HOST}/32`, URL_CA_FILE: caFile },
    stop: () => server.stop(),
  };
}
