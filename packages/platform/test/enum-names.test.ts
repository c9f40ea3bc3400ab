import { AccountStatus, AccountStatusSchema } from '@media/proto/media/auth/v1/auth_pb.js';
import { JobKind, JobKindSchema, JobStatus, JobStatusSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { enumNames } from '../src/index.js';

test('names come from the descriptors: lower-case local names, the zero value left out', () => {
  const status = enumNames<AccountStatus>(AccountStatusSchema);
  expect(status.names).toEqual(['active', 'no_card', 'payment_failed', 'suspended', 'closed']);
  expect(status.name(AccountStatus.PAYMENT_FAILED)).toBe('payment_failed');
  expect(status.value('no_card')).toBe(AccountStatus.NO_CARD);
  expect(status.name(AccountStatus.UNSPECIFIED)).toBeUndefined();
  expect(status.value('unspecified')).toBeUndefined();
  expect(status.value('NO_CARD')).toBeUndefined();
  expect(status.name(99 as AccountStatus)).toBeUndefined();
});

test('the API names of job states and kinds', () => {
  expect(enumNames<JobStatus>(JobStatusSchema).names).toEqual(['pending', 'processing', 'completed', 'failed', 'cancelled']);
  expect(enumNames<JobKind>(JobKindSchema).names).toEqual(['sync', 'async', 'probe']);
  expect(enumNames<JobKind>(JobKindSchema).name(JobKind.PROBE)).toBe('probe');
  expect(enumNames<JobStatus>(JobStatusSchema).value('cancelled')).toBe(JobStatus.CANCELLED);
});
