import { AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import { Errors } from '@media/platform';
import type { AccountStatusName } from '../adapters/repository.js';

const TO_PROTO: Record<AccountStatusName, AccountStatus> = {
  active: AccountStatus.ACTIVE,
  no_card: AccountStatus.NO_CARD,
  payment_failed: AccountStatus.PAYMENT_FAILED,
  suspended: AccountStatus.SUSPENDED,
  closed: AccountStatus.CLOSED,
};

export const statusToProto = (s: AccountStatusName): AccountStatus => TO_PROTO[s];

export function statusFromProto(s: AccountStatus): AccountStatusName {
  const found = (Object.entries(TO_PROTO) as [AccountStatusName, AccountStatus][]).find(([, v]) => v === s);
  if (!found) throw Errors.invalidRequest('Account status must be one of active, no_card, payment_failed, suspended, closed.');
  return found[0];
}
