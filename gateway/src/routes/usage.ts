// GET /account/usage — being implemented with the Billing issue.
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@connectrpc/connect';
import type { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';

export const usageRoutes: FastifyPluginAsync<{ billing: Client<typeof BillingService> }> = async () => {};
