// Test receiver for webhook deliveries: one HTTPS server on 127.0.0.2 (allow-listed), each path
// scripted separately so tests can run their own scenario, plus small shared helpers.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { openDocStore, type DocStore } from '@media/docstore';
import { createLogger } from '@media/platform';
import { startHttpsServer, type TestHttpsServer } from '@media/testkit';

/** A status to answer, a redirect, or 'hang' (never answer). */
export type Reply = number | 'hang' | { status: number; location: string };

export interface Arrival {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Route {
  url: string;
  readonly arrivals: Arrival[];
}

export interface Receiver {
  server: TestHttpsServer;
  /** A fresh path answering arrival n (1-based) with script(n, arrival). */
  route(script: (n: number, arrival: Arrival) => Reply): Route;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const routes = new Map<string, { script: (n: number, a: Arrival) => Reply; arrivals: Arrival[] }>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.get(req.url ?? '');
      if (!route || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const arrival = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      route.arrivals.push(arrival);
      const reply = route.script(route.arrivals.length, arrival);
      if (reply === 'hang') return; // the server's stop() cuts the socket
      if (typeof reply === 'number') res.writeHead(reply).end('{}');
      else res.writeHead(reply.status, { location: reply.location }).end();
    });
  };
  const server = await startHttpsServer({ host: '127.0.0.2', handler });
  let next = 0;
  return {
    server,
    route(script) {
      next += 1;
      const path = `/hook/${next}`;
      const entry = { script, arrivals: [] as Arrival[] };
      routes.set(path, entry);
      return { url: server.url + path, arrivals: entry.arrivals };
    },
    stop: () => server.stop(),
  };
}

/** The three Standard Webhooks headers of an arrival, as its libraries take them. */
export function standardHeaders(headers: Record<string, unknown>): Record<string, string> {
  return {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
}

export const silentLogger = createLogger('jobs-webhooks-test', 'silent');

export function openJobsStore(dataDir: string): Promise<DocStore> {
  return openDocStore({ database: 'jobs', dataDir });
}

/** Polls until check() is true; fails after timeoutMs. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// whsec_ + base64 of random bytes, as Auth makes them (the first is Standard Webhooks' own example).
export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const ROTATED_SECRET = 'whsec_3ZcHFPnOS1kcbSFGp0H/qy6LHK4RrpqL5tJ0eI5Ybn4=';
export const OTHER_SECRET = 'whsec_oMKbRnv9NGbtiY6nh1GRGqbOaFkXAHnBxMVMTbmdnT4=';
