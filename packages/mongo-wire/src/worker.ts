// The server's body when it runs in a worker thread (startMongoWireWorker): listens, then stops
// and listens again on request, keeping its data, as restart() of the in-process server does.
import { parentPort, workerData } from 'node:worker_threads';
import { WireServer, type WireServerOptions } from './server.js';

export type WorkerRequest = { id: number; op: 'stop' | 'listen' };
export type WorkerReply = { id: number; error?: string } | { port: number };

const options = workerData as WireServerOptions;
const server = new WireServer(options);
const port = await server.listen(options.port ?? 0);
const parent = parentPort!;
parent.postMessage({ port } satisfies WorkerReply);
parent.on('message', (req: WorkerRequest) => {
  const done = req.op === 'stop' ? server.stop() : server.listen(port);
  done.then(
    () => parent.postMessage({ id: req.id } satisfies WorkerReply),
    (err: Error) => parent.postMessage({ id: req.id, error: err.message } satisfies WorkerReply),
  );
});
