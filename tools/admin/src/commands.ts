// The console's commands. Each returns one JSON-serialisable object.
import type { Client } from '@connectrpc/connect';
import { type AccountStatus, AccountStatusSchema, type ApiKey, type AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { enumNames, isoFromTimestamp, toTimestamp } from '@media/platform';

export class UsageError extends Error {}

export const USAGE = `Usage: npm run -s admin -- <command>
  account create [--status active|no_card|payment_failed|suspended|closed]
  account set-status <account_id> <status>
  account webhook-secret <account_id> [--rotate [--grace-hours <0-168, default 24>]]
  account login-link <account_id>   (a one-time sign-in link to the web console, valid 15 minutes)
  key create --account <account_id> --name <name> [--expires-at <ISO 8601>]
  key revoke <key_id>
  key list --account <account_id>`;

const STATUS = enumNames<AccountStatus>(AccountStatusSchema);

function status(name: string | undefined): AccountStatus {
  const s = STATUS.value(name ?? '');
  if (s === undefined) throw new UsageError(`status must be one of ${STATUS.names.join(', ')}`);
  return s;
}

/** --grace-hours as seconds (Auth judges the range); undefined: Auth's default of 24 hours. */
function graceSec(hours: string | undefined): number | undefined {
  if (hours === undefined) return undefined;
  const h = Number(hours);
  if (hours.trim() === '' || !Number.isFinite(h) || h < 0) throw new UsageError('--grace-hours must be a number of hours from 0 to 168');
  return Math.round(h * 3600);
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

const keyJson = (k: ApiKey) => ({
  key_id: k.keyId,
  account_id: k.accountId,
  name: k.name,
  hint: k.hint,
  created_at: isoFromTimestamp(k.createdAt),
  expires_at: isoFromTimestamp(k.expiresAt),
  revoked_at: isoFromTimestamp(k.revokedAt),
  last_used_at: isoFromTimestamp(k.lastUsedAt),
});

export interface Parsed {
  positionals: string[];
  values: { status?: string; account?: string; name?: string; 'expires-at'?: string; rotate?: boolean; 'grace-hours'?: string };
}

/** `consoleUrl`: the web console's base URL, which login links point at. */
export async function runCommand(
  admin: Client<typeof AuthAdminService>,
  { positionals, values }: Parsed,
  consoleUrl = 'http://localhost:8083',
): Promise<object> {
  const [noun, verb, ...rest] = positionals;
  switch (`${noun} ${verb}`) {
    case 'account create': {
      const { account } = await admin.createAccount({ status: status(values.status ?? 'active') });
      return { account_id: account!.accountId, status: STATUS.name(account!.status) };
    }
    case 'account set-status': {
      const { account } = await admin.setAccountStatus({ accountId: required(rest[0], 'account_id'), status: status(rest[1]) });
      return { account_id: account!.accountId, status: STATUS.name(account!.status) };
    }
    case 'account webhook-secret': {
      const accountId = required(rest[0], 'account_id');
      if (values['grace-hours'] !== undefined && !values.rotate) throw new UsageError('--grace-hours goes with --rotate');
      const res = values.rotate
        ? await admin.rotateWebhookSecret({ accountId, graceSec: graceSec(values['grace-hours']) })
        : await admin.showWebhookSecret({ accountId });
      // previous_valid_until: until when the replaced secret still signs deliveries beside this one.
      return { account_id: accountId, webhook_secret: res.secret, previous_valid_until: isoFromTimestamp(res.previousValidUntil) };
    }
    case 'account login-link': {
      const accountId = required(rest[0], 'account_id');
      const { token, expiresAt } = await admin.createLoginLink({ accountId });
      const url = new URL('/login', consoleUrl);
      url.searchParams.set('token', token);
      return { account_id: accountId, url: url.href, expires_at: isoFromTimestamp(expiresAt) };
    }
    case 'key create': {
      let expiresAt;
      if (values['expires-at'] !== undefined) {
        const d = new Date(values['expires-at']);
        if (Number.isNaN(d.getTime())) throw new UsageError('--expires-at must be an ISO 8601 time');
        expiresAt = toTimestamp(d);
      }
      const res = await admin.createKey({
        accountId: required(values.account, '--account'),
        name: required(values.name, '--name'),
        expiresAt,
      });
      return {
        key_id: res.key!.keyId,
        key: res.secret,
        authorization: res.authorization,
        name: res.key!.name,
        expires_at: isoFromTimestamp(res.key!.expiresAt),
      };
    }
    case 'key revoke': {
      const { key } = await admin.revokeKey({ keyId: required(rest[0], 'key_id') });
      return keyJson(key!);
    }
    case 'key list': {
      const { keys } = await admin.listKeys({ accountId: required(values.account, '--account') });
      return { keys: keys.map(keyJson) };
    }
    default:
      throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
  }
}
