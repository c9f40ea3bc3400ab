// gRPC server reflection (grpc.reflection.v1) on every service, so grpcurl, grpcui and other
// generic clients list and call the RPCs without a copy of the .proto files. No Connect-ES
// package implements it (the Go one, connectrpc.com/grpcreflect, has no ECMAScript twin), so it is
// written here on the descriptors the generated code carries: the files of the services the router
// serves and everything they import.
import { create, createRegistry, type DescFile, type DescService, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, type ConnectRouter } from '@connectrpc/connect';
import {
  ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from '@media/proto/grpc/reflection/v1/reflection_pb.js';

/** The file and every file it imports, depth first, each once. */
function withImports(file: DescFile, into: DescFile[] = []): DescFile[] {
  if (into.includes(file)) return into;
  into.push(file);
  for (const dep of file.dependencies) withImports(dep, into);
  return into;
}

/**
 * Registers grpc.reflection.v1.ServerReflection for the services already on `router` (call it
 * after them). Requests about extensions answer NOT_FOUND: the services' files declare none.
 */
export function registerReflection(router: ConnectRouter): void {
  const services = new Map<string, DescService>();
  for (const h of router.handlers) services.set(h.service.typeName, h.service);
  services.set(ServerReflection.typeName, ServerReflection);
  const files = [...new Set([...services.values()].flatMap((s) => withImports(s.file)))];
  const registry = createRegistry(...files);
  const byName = new Map(files.map((f) => [f.proto.name, f]));

  /** The file that declares `symbol`: a service, a method (Service.Method), a message or an enum. */
  const fileOf = (symbol: string): DescFile | undefined => {
    const found = registry.get(symbol);
    if (found && 'file' in found) return found.file;
    const parent = registry.getService(symbol.slice(0, Math.max(0, symbol.lastIndexOf('.'))));
    return parent?.methods.some((m) => `${parent.typeName}.${m.name}` === symbol) ? parent.file : undefined;
  };

  const answer = (req: ServerReflectionRequest, sent: Set<DescFile>): ServerReflectionResponse['messageResponse'] => {
    const r = req.messageRequest;
    const notFound = (what: string) => ({
      case: 'errorResponse' as const,
      value: { $typeName: 'grpc.reflection.v1.ErrorResponse' as const, errorCode: Code.NotFound, errorMessage: `${what} not found` },
    });
    const filesFrom = (file: DescFile | undefined, what: string) => {
      if (!file) return notFound(what);
      // The file itself always, and the imports this stream has not been sent yet (as grpc-go does).
      const out = withImports(file).filter((f, i) => i === 0 || !sent.has(f));
      for (const f of out) sent.add(f);
      return {
        case: 'fileDescriptorResponse' as const,
        value: {
          $typeName: 'grpc.reflection.v1.FileDescriptorResponse' as const,
          fileDescriptorProto: out.map((f) => toBinary(FileDescriptorProtoSchema, f.proto)),
        },
      };
    };
    switch (r.case) {
      case 'listServices':
        return {
          case: 'listServicesResponse',
          value: {
            $typeName: 'grpc.reflection.v1.ListServiceResponse',
            service: [...services.keys()].sort().map((name) => ({ $typeName: 'grpc.reflection.v1.ServiceResponse', name })),
          },
        };
      case 'fileByFilename':
        return filesFrom(byName.get(r.value), `file ${r.value}`);
      case 'fileContainingSymbol':
        return filesFrom(fileOf(r.value), `symbol ${r.value}`);
      case 'fileContainingExtension':
        return notFound(`extension ${r.value.extensionNumber} of ${r.value.containingType}`);
      case 'allExtensionNumbersOfType':
        return registry.getMessage(r.value)
          ? {
              case: 'allExtensionNumbersResponse',
              value: { $typeName: 'grpc.reflection.v1.ExtensionNumberResponse', baseTypeName: r.value, extensionNumber: [] },
            }
          : notFound(`type ${r.value}`);
      default:
        return {
          case: 'errorResponse',
          value: { $typeName: 'grpc.reflection.v1.ErrorResponse', errorCode: Code.InvalidArgument, errorMessage: 'no request given' },
        };
    }
  };

  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sent = new Set<DescFile>();
      for await (const req of requests) {
        yield create(ServerReflectionResponseSchema, { validHost: req.host, originalRequest: req, messageResponse: answer(req, sent) });
      }
    },
  });
}
