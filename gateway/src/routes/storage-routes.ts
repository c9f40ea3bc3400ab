// The type of the route plugins that answer from Storage (directories, files).
import type { Client } from '@connectrpc/connect';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';

/** Given Storage's client; handlers typed from their JSON schemas. */
export type StorageRoutes = FastifyPluginAsyncJsonSchemaToTs<{ Options: { storage: Client<typeof StorageService> } }>;
