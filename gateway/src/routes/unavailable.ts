// Retired and reserved endpoints answer the same way whoever asks and whatever is sent:
// no key needed, and the body is drained unread (so no body rule can answer first).
import type { FastifyPluginAsync } from 'fastify';
import { Errors } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';

const flags: RouteFlags = { public: true };

export const unavailableRoutes: FastifyPluginAsync = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (_req, payload, done) => {
    payload.resume();
    payload.once('end', () => done(null, undefined));
    payload.once('error', (err) => done(err));
  });
  app.post('/ffmpeg/run', { config: flags }, async () => {
    throw Errors.retired();
  });
  for (const path of ['/ai/ffmpeg/process', '/ai/ffmpeg/process/async', '/ai/ffprobe/analyze']) {
    app.post(path, { config: flags }, async () => {
      throw Errors.notOffered();
    });
  }
};
