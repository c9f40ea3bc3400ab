// The two-account benches (fair-share, capacity-share): account A's long jobs against account
// B's tiny one, each B job timed by the service's own timestamps (created_at to completed_at).
import { api, upload, type Api, type Service } from './service.js';

export const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** Polls (through several keys: each may send 300 requests a minute) until the job ends completed. */
export async function finished(calls: Api[], jobId: string, pollMs: number): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const job = await calls[i % calls.length]!('GET', `/job/${jobId}`);
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled') {
      if (job.status !== 'completed') throw new Error(`job ${jobId} ended ${job.status}: ${job.error}`);
      return;
    }
    await sleep(pollMs); // the latency is the service's own timestamps': polling only finds the end
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** A's account (a key to submit, one to poll) with `clip` uploaded; B's (four keys) with `tiny`. */
export async function twoAccounts(svc: Service, clip: string, tiny: string) {
  const a = await svc.account(2);
  const b = await svc.account(4);
  const submitA = api(svc.stack.baseUrl, a.authorizations[0]!);
  const pollA = api(svc.stack.baseUrl, a.authorizations[1]!);
  const [callB, ...pollB] = b.authorizations.map((auth) => api(svc.stack.baseUrl, auth)) as [Api, ...Api[]];
  const clipPath = await upload(submitA, clip, 'clip.mp4');
  const tinyPath = await upload(callB, tiny, 'tiny.png');
  return { submitA, pollA, callB, pollB, clipPath, tinyPath };
}
