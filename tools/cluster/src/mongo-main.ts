// node mongo-main.js <port>: the MongoDB-wire test server as a process of the cluster, until SIGTERM.
import { startMongoWireServer } from '@media/mongo-wire';

const server = await startMongoWireServer({ port: Number(process.argv[2]) });
console.log(`mongo-wire listening on ${server.url}`);
const quit = () => void server.stop().finally(() => process.exit(0));
process.once('SIGTERM', quit);
process.once('SIGINT', quit);
