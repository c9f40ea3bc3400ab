// The invariants as pure functions over synthetic run data: each holds on a healthy run and
// breaks on the one fault it exists to catch.
import { checkAnswers, GATEWAY_KILL_GRACE_MS } from '../src/invariants/answers.js';
import { checkCharges } from '../src/invariants/charges.js';
import { checkFiles } from '../src/invariants/files.js';
import { checkJobs } from '../src/invariants/jobs.js';
import { checkLimits, rateTolerance } from '../src/invariants/limits.js';
import { checkRecovery, RECOVERY_BOUND_MS } from '../src/invariants/recovery.js';
import { checkWebhooks } from '../src/invariants/webhooks.js';
import type { Call, FaultRecord } from '../src/record.js';
import { call, delivery, healthyRun, T0 } from './helpers.js';

describe('jobs: terminal, none run twice', () => {
  test('holds on a healthy run', () => {
    expect(checkJobs(healthyRun())).toMatchObject({ ok: true, figures: { accepted: 2, completed: 1, failed: 1, ranTwice: 0 } });
  });
  test('a job still processing, and one never listed, break it', () => {
    const run = healthyRun();
    run.finalJobs = [{ account: 'a0', id: 'job_a', status: 'processing' }];
    const v = checkJobs(run);
    expect(v.ok).toBe(false);
    expect(v.violations).toEqual(['job_a (a0): still processing at the end', 'job_b (a0): accepted with 202, not listed at the end']);
  });
  test('two different completions of one job break it', () => {
    const run = healthyRun();
    run.webhooks.push(
      delivery('job_a', { status: 'completed', completed_at: '2026-01-01T00:00:09.000Z', amount_usd: 0.002, usage: { time_sec: 0.4 } }),
    );
    expect(checkJobs(run)).toMatchObject({ ok: false, figures: { ranTwice: 1 } });
  });
  test('the same completion delivered twice (a retried webhook) does not', () => {
    const run = healthyRun();
    run.webhooks.push({ ...run.webhooks[0]!, headers: { ...run.webhooks[0]!.headers, 'webhook-attempt': '2' } });
    expect(checkJobs(run).ok).toBe(true);
  });
});

describe('charges: exactly once', () => {
  test('holds on a healthy run', () => {
    expect(checkCharges(healthyRun())).toMatchObject({
      ok: true,
      figures: { chargedAnswers: 3, usageRows: 3, exactlyOnce: 3, doubled: 0 },
    });
  });
  test('a charge recorded a second time under another request id is a doubled charge', () => {
    const run = healthyRun();
    run.usage.push({ ...run.usage[0]!, request_id: 'job_a_again' });
    const v = checkCharges(run);
    expect(v.ok).toBe(false);
    expect(v.figures.doubled).toBe(1);
    expect(v.violations).toContain('doubled charge: one charge recorded under 2 request ids (job_a, job_a_again)');
  });
  test('a failed job charged, and a completed one not charged, break it', () => {
    const run = healthyRun();
    run.usage = run.usage.filter((r) => r.request_id !== 'job_a');
    run.usage.push({ ...run.usage[0]!, request_id: 'job_b', completed_at: '2026-01-01T00:00:07.000Z' });
    expect(checkCharges(run).violations).toEqual(['job_a (a0): not charged', 'job_b: charged, but the job ended without completing']);
  });
  test('a row for an unknown request is explained by an unanswered request, not otherwise', () => {
    const run = healthyRun();
    run.usage.push({ ...run.usage[1]!, request_id: 'job_lost', completed_at: '2026-01-01T00:00:30.000Z' });
    expect(checkCharges(run).ok).toBe(false);
    run.calls.push(call({ status: undefined, transportError: 'ECONNRESET' }));
    expect(checkCharges(run)).toMatchObject({ ok: true, figures: { forUnknownRequest: 1 } });
  });
});

describe('webhooks: delivered, signed, stable ids', () => {
  test('holds on a healthy run', () => {
    expect(checkWebhooks(healthyRun())).toMatchObject({ ok: true, figures: { owed: 2, delivered: 2 } });
  });
  test('a bad signature, a missing delivery and a changing delivery id break it', () => {
    const run = healthyRun();
    run.webhooks = [
      delivery('job_a', { status: 'completed' }, { secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` }),
      delivery('job_a', { status: 'completed' }, { id: 'other', attempt: 2 }),
    ];
    const v = checkWebhooks(run);
    expect(v.ok).toBe(false);
    expect(v.violations).toEqual([
      'job_a: a delivery whose signature does not verify (attempt 1)',
      'job_a: delivery ids job_a, other (one, the job id, expected)',
      'job_b (failed): no verified webhook delivery',
    ]);
  });
});

describe('files: uploads read back, listed files readable', () => {
  test('holds on a healthy run', () => {
    expect(checkFiles(healthyRun()).ok).toBe(true);
  });
  test('an acknowledged upload read back different, and an unreadable listed file, break it', () => {
    const run = healthyRun();
    run.downloads = [{ account: 'a0', filePath: 'dir_1/up-1.bin', outcome: 'different', detail: '3 bytes', when: 'final' }];
    run.listed.push({ account: 'a0', filePath: 'dir_1/up-2.bin', readable: false, detail: 'signed GET: 404' });
    expect(checkFiles(run).violations).toEqual([
      'dir_1/up-1.bin (a0): acknowledged, different at the end (3 bytes)',
      'dir_1/up-2.bin (a0): listed but unreadable (signed GET: 404)',
    ]);
  });
});

describe('answers: only the spec, no hang', () => {
  const kill: FaultRecord = { kind: 'kill-replica', targets: ['gateway-1'], startMs: T0 + 1000, endMs: T0 + 5000 };
  test('503 with Retry-After, a sync 500 and 4xx are spec answers', () => {
    const calls: Call[] = [
      call({ status: 503, retryAfter: '5' }),
      call({ status: 500, error: 'FFmpeg command failed with exit code 1: x' }),
      call({ op: 'get', method: 'GET', path: '/account', status: 429, retryAfter: '3' }),
    ];
    expect(checkAnswers(calls, []).ok).toBe(true);
  });
  test('a hang, a 503 without Retry-After, a 502 from the balancer and a 500 on a read break it', () => {
    const v = checkAnswers(
      [
        call({ status: undefined, timedOut: true }),
        call({ status: 503 }),
        call({ status: 502, notJson: true, error: '<html>502 Bad Gateway</html>' }),
        call({ op: 'usage', method: 'GET', path: '/account/usage', status: 500, error: 'Internal error' }),
      ],
      [],
    );
    expect(v.violations.map((x) => x.replace(/ at [\d:.]+:/, ':'))).toEqual([
      'POST /ffmpeg/process (sync, a0): no answer within the client timeout (a hang)',
      'POST /ffmpeg/process (sync, a0): 503 without Retry-After (undefined)',
      'POST /ffmpeg/process (sync, a0): 502 not from the service (<html>502 Bad Gateway</html>)',
      'GET /account/usage (usage, a0): 500: Internal error',
    ]);
  });
  test("the balancer's answer for a request in flight on a gateway killed with SIGKILL is the fault's", () => {
    const inFlight = call({ startMs: T0 + 500, endMs: T0 + 1200, status: 502, notJson: true });
    expect(checkAnswers([inFlight], [kill])).toMatchObject({ ok: true, figures: { excused: 1 } });
    const later = call({
      startMs: T0 + 1000 + GATEWAY_KILL_GRACE_MS + 1,
      endMs: T0 + 1000 + GATEWAY_KILL_GRACE_MS + 5,
      status: 502,
      notJson: true,
    });
    expect(checkAnswers([later], [kill]).ok).toBe(false);
  });
  test('a drained gateway is owed nothing: a reset or a bare 503 while it drains is a violation', () => {
    const drain: FaultRecord = { kind: 'drain-gateway', targets: ['gateway-2'], startMs: T0 + 1000, endMs: T0 + 12_000 };
    const reset = call({ startMs: T0 + 1010, endMs: T0 + 1030, status: undefined, transportError: 'UND_ERR_SOCKET' });
    expect(checkAnswers([reset], [drain])).toMatchObject({ ok: false, figures: { excused: 0 } });
    expect(checkAnswers([call({ startMs: T0 + 1010, status: 503, notJson: true })], [drain]).ok).toBe(false);
  });
});

describe('limits across replicas', () => {
  const jobsProbe = {
    account: 'limits',
    limit: 50,
    sent: 60,
    accepted: Array.from({ length: 50 }, (_, i) => `job_${i}`),
    refused: 10,
    lastAnswerMs: T0,
  };
  test('the rate tolerance is what other gateways admit in one sync interval plus the window slide', () => {
    // 360 requests in 3 s on 2 gateways, 200 ms sync: 24 from the other gateway, 15 slide.
    expect(rateTolerance(300, 360, 3000, 2, 200)).toBe(24 + 15);
    expect(rateTolerance(300, 360, 3000, 1, 200)).toBe(15);
  });
  test('holds within the limits', () => {
    const v = checkLimits(
      { rate: { account: 'limits', limit: 300, sent: 360, admitted: 320, refused: 40, durationMs: 3000 }, jobs: jobsProbe },
      [],
      2,
      200,
    );
    expect(v.ok).toBe(true);
  });
  test('more admitted than the limit and its tolerance, or no refusal at all, breaks it', () => {
    const v = checkLimits(
      {
        rate: { account: 'limits', limit: 300, sent: 360, admitted: 360, refused: 0, durationMs: 3000 },
        jobs: { ...jobsProbe, accepted: [...jobsProbe.accepted, 'job_x'], refused: 9 },
      },
      [],
      2,
      200,
    );
    expect(v.violations).toEqual([
      'rate: 360 admitted, over 300 + 39',
      'rate: none of 360 refused',
      'jobs: 51 accepted at once, over 50 + 0 ended',
    ]);
  });
  test('a job that ended before the last answer made room for one more', () => {
    const ended = delivery('job_0', { status: 'completed', completed_at: new Date(T0 - 1).toISOString() });
    const v = checkLimits(
      {
        rate: { account: 'limits', limit: 300, sent: 360, admitted: 300, refused: 60, durationMs: 3000 },
        jobs: { ...jobsProbe, accepted: [...jobsProbe.accepted, 'job_x'], refused: 9 },
      },
      [ended],
      2,
      200,
    );
    expect(v.ok).toBe(true);
  });
});

describe('recovery after the last fault', () => {
  // Two successes a second, except from 30 s to `back` s.
  const load = (backSec: number) => {
    const calls: Call[] = [];
    for (let s = 0; s < 180; s++)
      if (s < 30 || s >= backSec) for (const k of [0, 500]) calls.push(call({ startMs: T0 + s * 1000 + k, endMs: T0 + s * 1000 + k + 10 }));
    return calls;
  };
  const faults: FaultRecord[] = [
    { kind: 'restart-nats', targets: ['nats-1', 'nats-2', 'nats-3'], startMs: T0 + 30_000, endMs: T0 + 40_000 },
  ];
  test('back within the bound', () => {
    const v = checkRecovery(load(50), faults, T0, T0 + 180_000);
    expect(v).toMatchObject({ ok: true, figures: { baselinePerSec: 2 } });
    expect(v.figures.recoveryMs).toBeGreaterThan(0);
    expect(v.figures.recoveryMs).toBeLessThanOrEqual(10_000);
  });
  test('back only after the bound, or never, breaks it', () => {
    expect(checkRecovery(load(40 + RECOVERY_BOUND_MS / 1000 + 20), faults, T0, T0 + 180_000).ok).toBe(false);
    expect(checkRecovery(load(500), faults, T0, T0 + 180_000).violations[0]).toMatch(/not back to 80% of the pre-fault median/);
  });
});
