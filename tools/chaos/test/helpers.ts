// Synthetic run data for the invariants' tests: a healthy run, which each test breaks in one way.
import { Webhook } from 'standardwebhooks';
import type { Call, RunData, WebhookDelivery } from '../src/record.js';

export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

export function call(over: Partial<Call>): Call {
  return { op: 'sync', account: 'a0', method: 'POST', path: '/ffmpeg/process', startMs: T0, endMs: T0 + 100, status: 200, ...over };
}

export function delivery(
  jobId: string,
  body: Record<string, unknown>,
  over: { id?: string; secret?: string; attempt?: number } = {},
): WebhookDelivery {
  const text = JSON.stringify({ job_id: jobId, request_id: jobId, ...body });
  const id = over.id ?? jobId;
  const ts = Math.floor(T0 / 1000) + 5;
  return {
    account: 'a0',
    atMs: T0 + 5000,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': new Webhook(over.secret ?? SECRET).sign(id, new Date(ts * 1000), text),
      'webhook-attempt': String(over.attempt ?? 1),
    },
    body: text,
  };
}

const completed = () => ({
  status: 'completed',
  completed_at: '2026-01-01T00:00:04.000Z',
  amount_usd: 0.001,
  usage: { time_sec: 0.2 },
});

/** Two async jobs (one completed, one failed), one sync run and one probe answered 200, all charged as they should be. */
export function healthyRun(): RunData {
  return {
    startedMs: T0,
    loadEndMs: T0 + 60_000,
    calls: [
      call({ op: 'async', path: '/ffmpeg/process/async', status: 202, requestId: 'job_a' }),
      call({ op: 'async', path: '/ffmpeg/process/async', status: 202, requestId: 'job_b' }),
      call({ op: 'sync', requestId: 'job_s' }),
      call({ op: 'probe', path: '/ffprobe/analyze', requestId: 'job_p' }),
    ],
    uploads: [{ account: 'a0', filePath: 'dir_1/up-1.bin', sha256: 'aa', acknowledged: true, atMs: T0 }],
    downloads: [{ account: 'a0', filePath: 'dir_1/up-1.bin', outcome: 'same', when: 'final' }],
    webhooks: [
      delivery('job_a', completed()),
      delivery('job_b', { status: 'failed', error: 'FFmpeg command failed with exit code 1: x', completed_at: '2026-01-01T00:00:04.000Z' }),
    ],
    faults: [],
    secrets: { a0: SECRET },
    finalJobs: [
      { account: 'a0', id: 'job_a', status: 'completed' },
      { account: 'a0', id: 'job_b', status: 'failed' },
    ],
    usage: [
      { account: 'a0', request_id: 'job_a', completed_at: '2026-01-01T00:00:04.000Z', key_id: 'key_1', gb_sec: 0.1, amount_usd: 0.001 },
      { account: 'a0', request_id: 'job_s', completed_at: '2026-01-01T00:00:01.000Z', key_id: 'key_1', gb_sec: 0.1, amount_usd: 0.001 },
      { account: 'a0', request_id: 'job_p', completed_at: '2026-01-01T00:00:02.000Z', key_id: 'key_1', gb_sec: 0.01, amount_usd: 0.0001 },
    ],
    limits: {},
    crashes: [],
    listed: [{ account: 'a0', filePath: 'dir_1/up-1.bin', readable: true }],
  };
}
