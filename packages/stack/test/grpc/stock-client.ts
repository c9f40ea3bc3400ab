// A third-party gRPC client of the services, as another language's stack would be: @grpc/grpc-js
// over plain HTTP/2, with stubs made by @grpc/proto-loader from the .proto files (or from the
// descriptors reflection answers), nothing of the project's own Connect transport.
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { root } from '@media/testkit';

const LOADER_OPTIONS: protoLoader.Options = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };

/** The stubs of every service, by fully-qualified service name, from the repository's .proto files. */
export function loadFromProtoFiles(): Map<string, grpc.ServiceClientConstructor> {
  const files = [
    'media/auth/v1/auth.proto',
    'media/storage/v1/storage.proto',
    'media/jobs/v1/jobs.proto',
    'media/probe/v1/probe.proto',
    'media/billing/v1/billing.proto',
    'grpc/health/v1/health.proto',
    'grpc/reflection/v1/reflection.proto',
  ];
  return stubs(protoLoader.loadSync(files, { ...LOADER_OPTIONS, includeDirs: [join(root, 'proto')] }));
}

/** The stubs of the services in serialized FileDescriptorProtos (what reflection answers). */
export function loadFromDescriptors(files: Uint8Array[]): Map<string, grpc.ServiceClientConstructor> {
  const set = create(FileDescriptorSetSchema, { file: files.map((f) => fromBinary(FileDescriptorProtoSchema, f)) });
  return stubs(protoLoader.loadFileDescriptorSetFromBuffer(Buffer.from(toBinary(FileDescriptorSetSchema, set)), LOADER_OPTIONS));
}

function stubs(definition: protoLoader.PackageDefinition): Map<string, grpc.ServiceClientConstructor> {
  const out = new Map<string, grpc.ServiceClientConstructor>();
  const loaded = grpc.loadPackageDefinition(definition);
  for (const name of Object.keys(definition)) {
    if (!('format' in definition[name]!) && isService(definition[name])) {
      const ctor = name.split('.').reduce<any>((o, k) => o?.[k], loaded) as grpc.ServiceClientConstructor;
      out.set(name, ctor);
    }
  }
  return out;
}

const isService = (d: unknown): boolean =>
  typeof d === 'object' && d !== null && Object.values(d).some((m) => 'requestStream' in (m as object));

/** A client of `service` at `url` (http://host:port), plain text HTTP/2. */
export function connect(
  ctors: Map<string, grpc.ServiceClientConstructor>,
  service: string,
  url: string,
): grpc.Client & Record<string, any> {
  const ctor = ctors.get(service);
  if (!ctor) throw new Error(`no stub for ${service}: ${[...ctors.keys()].join(', ')}`);
  return new ctor(new URL(url).host, grpc.credentials.createInsecure()) as grpc.Client & Record<string, any>;
}

export interface UnaryAnswer<T> {
  value?: T;
  error?: grpc.ServiceError;
  /** The response's headers (initial metadata), or the error's metadata (trailers). */
  metadata: grpc.Metadata;
}

/** Calls a unary method and settles with its answer, an error included (never rejects). */
export function unary<T = any>(
  client: grpc.Client & Record<string, any>,
  method: string,
  request: object,
  metadata = new grpc.Metadata(),
  options: grpc.CallOptions = {},
): Promise<UnaryAnswer<T>> {
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    const call = client[method](request, metadata, options, (error: grpc.ServiceError | null, value: T) =>
      resolve(error ? { error, metadata: error.metadata } : { value, metadata: headers }),
    ) as grpc.ClientUnaryCall;
    call.on('metadata', (m) => (headers = m));
  });
}

export { grpc };
