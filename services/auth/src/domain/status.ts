import { type AccountStatus, AccountStatusSchema } from '@media/proto/media/auth/v1/auth_pb.js';
import { enumNames, Errors } from '@media/platform';
import type { AccountStatusName } from './ports.js';

const STATUS = enumNames<AccountStatus, AccountStatusName>(AccountStatusSchema);

export const statusToProto = (s: AccountStatusName): AccountStatus => STATUS.value(s)!;

export function statusFromProto(s: AccountStatus): AccountStatusName {
  const name = STATUS.name(s);
  if (name === undefined) throw Errors.invalidRequest(`Account status must be one of ${STATUS.names.join(', ')}.`);
  return name;
}
