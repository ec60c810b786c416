// Clients of the four RememberStack services over channels with retries, deadlines and auth.
import {
  CallOptions,
  ChannelCredentials,
  ClientOptions,
  ClientReadableStream,
  ClientUnaryCall,
  credentials as grpcCredentials,
  InterceptingCall,
  Interceptor,
  Metadata,
  ServiceError,
} from "@grpc/grpc-js";
import { AdjudicatorServiceClient } from "./gen/rememberstack/v1/adjudicator_service";
import { VersionReadiness } from "./gen/rememberstack/v1/document";
import { GraphServiceClient } from "./gen/rememberstack/v1/graph_service";
import { IngestServiceClient, WatchReadinessRequest } from "./gen/rememberstack/v1/ingest_service";
import { QueryServiceClient } from "./gen/rememberstack/v1/query_service";
import { decodeError } from "./errors";
import serviceConfig from "./service-config.json";

/** Where each service listens (`host:port`). */
export interface Endpoints {
  ingest: string;
  adjudicator: string;
  query: string;
  graph: string;
}

/** The ports `rememberstack up` binds by default: ingest 50051 ... graph 50054. */
export function localEndpoints(host = "127.0.0.1", basePort = 50051): Endpoints {
  return {
    ingest: `${host}:${basePort}`,
    adjudicator: `${host}:${basePort + 1}`,
    query: `${host}:${basePort + 2}`,
    graph: `${host}:${basePort + 3}`,
  };
}

export interface ConnectOptions {
  /** TLS or other channel credentials; plaintext when absent. */
  credentials?: ChannelCredentials;
  /** Sent as `authorization: Bearer <token>` on every call. */
  bearerToken?: string;
  /** Deadline of unary and client-streaming calls that set none; 0 for none. Default 30 s. */
  timeoutMs?: number;
}

export interface RememberStack {
  ingest: IngestServiceClient;
  adjudicator: AdjudicatorServiceClient;
  query: QueryServiceClient;
  graph: GraphServiceClient;
  close(): void;
}

/** Adds the bearer credential and the default deadline (streams of updates get none). */
function shapingInterceptor(bearerToken: string | undefined, timeoutMs: number): Interceptor {
  return (options, nextCall) => {
    if (timeoutMs > 0 && options.deadline === undefined && !options.method_definition.responseStream) {
      options.deadline = new Date(Date.now() + timeoutMs);
    }
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        if (bearerToken) {
          metadata.set("authorization", `Bearer ${bearerToken}`);
        }
        next(metadata, listener);
      },
    });
  };
}

/** Channel options every RememberStack client uses: retries per clients/service-config.json. */
export function channelOptions(): ClientOptions {
  return {
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.enable_retries": 1,
    "grpc.max_send_message_length": 32 * 1024 * 1024,
    "grpc.max_receive_message_length": 32 * 1024 * 1024,
    "grpc.keepalive_time_ms": 60_000,
    "grpc.keepalive_timeout_ms": 20_000,
  };
}

/** Open one client per service. Failed calls made through `unary` reject with RememberStackError. */
export function connect(endpoints: Endpoints, options: ConnectOptions = {}): RememberStack {
  const creds = options.credentials ?? grpcCredentials.createInsecure();
  const clientOptions: ClientOptions = {
    ...channelOptions(),
    interceptors: [shapingInterceptor(options.bearerToken, options.timeoutMs ?? 30_000)],
  };
  const ingest = new IngestServiceClient(endpoints.ingest, creds, clientOptions);
  const adjudicator = new AdjudicatorServiceClient(endpoints.adjudicator, creds, clientOptions);
  const query = new QueryServiceClient(endpoints.query, creds, clientOptions);
  const graph = new GraphServiceClient(endpoints.graph, creds, clientOptions);
  return {
    ingest,
    adjudicator,
    query,
    graph,
    close() {
      for (const client of [ingest, adjudicator, query, graph]) {
        client.close();
      }
    },
  };
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * Call a unary method as a promise that rejects with a decoded RememberStackError:
 * `await unary(client.query, client.query.factsContext, request)`.
 */
export function unary<Req, Res>(
  client: object,
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: Partial<CallOptions> = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, request, new Metadata(), options, (error, response) => {
      if (error) {
        reject(decodeError(error));
      } else {
        resolve(response);
      }
    });
  });
}

/** Follow WatchReadiness until every version is ready or dead-lettered; the last states. */
export async function waitUntilSettled(
  ingest: IngestServiceClient,
  versionIds: string[],
  { namespace = "", timeoutMs = 300_000 }: { namespace?: string; timeoutMs?: number } = {},
): Promise<VersionReadiness[]> {
  const latest = new Map<string, VersionReadiness>();
  const stream: ClientReadableStream<{ versions: VersionReadiness[]; allSettled: boolean }> =
    ingest.watchReadiness(WatchReadinessRequest.fromPartial({ namespace, versionIds }), {
      deadline: new Date(Date.now() + timeoutMs),
    });
  try {
    for await (const update of stream) {
      for (const version of update.versions) {
        latest.set(version.versionId, version);
      }
      if (update.allSettled) {
        break;
      }
    }
  } catch (error) {
    throw decodeError(error);
  } finally {
    stream.cancel();
  }
  return versionIds.flatMap((id) => (latest.has(id) ? [latest.get(id)!] : []));
}
