// Retired and reserved endpoints answer the same way whoever asks and whatever is sent:
// no key needed, and the body is drained unread (so no body rule can answer first).
import type { FastifyPluginAsync } from 'fastify';
import { Errors } from '@media/platform';
import { errorResponses } from './schemas.js';
import type { RouteFlags } from '../plugins/body.js';

const flags: RouteFlags = { public: true };

export const unavailableRoutes: FastifyPluginAsync = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { bodyLimit: Number.MAX_SAFE_INTEGER }, (_req, payload, done) => {
    payload.resume();
    payload.once('end', () => done(null, undefined));
    payload.once('error', (err) => done(err));
  });
  const tags = ['Retired'];
  const runSchema = {
    tags,
    operationId: 'runRetired',
    summary: 'Retired: use POST /ffmpeg/process',
    deprecated: true,
    response: errorResponses([410], { 410: 'Always: POST /ffmpeg/run is retired. Use POST /ffmpeg/process.' }),
  };
  app.post('/ffmpeg/run', { config: flags, schema: runSchema }, async () => {
    throw Errors.retired();
  });
  for (const path of ['/ai/ffmpeg/process', '/ai/ffmpeg/process/async', '/ai/ffprobe/analyze']) {
    const schema = {
      tags,
      operationId: `notOffered${path.replace(/\/(\w)/g, (_m: string, c: string) => c.toUpperCase())}`,
      summary: 'Not offered (reserved)',
      response: errorResponses([501], { 501: 'Always: this endpoint is not offered.' }),
    };
    app.post(path, { config: flags, schema }, async () => {
      throw Errors.notOffered();
    });
  }
};
