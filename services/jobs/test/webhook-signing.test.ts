// The signature is Standard Webhooks' own: compared with what its library signs, and secrets made
// before the switch (whsec_ + 40 letters and digits) still work as Standard Webhooks secrets.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { computeSignature, secretKey, signedHeaders } from '../src/webhooks/signing.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"event":"job.completed","job_id":"job_1"}';

test('the signature is the one the standardwebhooks library makes', () => {
  const ts = 1_614_265_330;
  expect(computeSignature(SECRET, 'job_1', ts, BODY)).toBe(new Webhook(SECRET).sign('job_1', new Date(ts * 1000), BODY));
});

test('headers with two secrets verify under each, and not under a third', () => {
  const other = 'whsec_3ZcHFPnOS1kcbSFGp0H/qy6LHK4RrpqL5tJ0eI5Ybn4=';
  const headers = signedHeaders({
    secrets: [SECRET, other],
    jobId: 'job_1',
    attempt: 2,
    timestampSec: Math.floor(Date.now() / 1000),
    body: BODY,
  });
  expect(headers['webhook-attempt']).toBe('2');
  expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  expect(new Webhook(other).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  expect(() => new Webhook('whsec_oMKbRnv9NGbtiY6nh1GRGqbOaFkXAHnBxMVMTbmdnT4=').verify(BODY, headers)).toThrow(WebhookVerificationError);
});

test('a secret made before Standard Webhooks (40 letters and digits) is valid base64: receivers keep it', () => {
  const legacy = 'whsec_2nzzcuu134vsvrtpyoe7tefq914rvwkawp6tt3pp';
  expect(secretKey(legacy)).toHaveLength(30);
  const headers = signedHeaders({ secrets: [legacy], jobId: 'job_2', attempt: 1, timestampSec: Math.floor(Date.now() / 1000), body: BODY });
  expect(new Webhook(legacy).verify(BODY, headers)).toEqual(JSON.parse(BODY));
});

test('a secret that is not whsec_ and base64 is refused, not used as text', () => {
  expect(() => secretKey('whsec_not base64!')).toThrow('webhook secret is not whsec_ followed by base64');
  expect(() => secretKey('whsec_abc')).toThrow('webhook secret is not whsec_ followed by base64');
});
