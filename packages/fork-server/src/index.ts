// Runs ffmpeg/ffprobe forked from a server that has loaded their ~200 shared libraries once
// (native/forkserver.c): a tiny run then costs ~10 ms of CPU instead of ~68 ms. See README.md.
export { forkServerLibrary } from './library.js';
export { ForkServerPool, RUNS_PER_SERVER, type ForkServerPoolOptions, type WarnLogger } from './pool.js';
export { decodeStatus, encodeRequest, FrameReader } from './protocol.js';
export {
  ForkServer,
  ForkServerUnavailable,
  type ForkRun,
  type ForkRunExit,
  type ForkRunRequest,
  type ForkServerHooks,
} from './server.js';
