// Failed calls as typed errors carrying the google.rpc details the server sends.
import { Metadata, ServiceError, status } from "@grpc/grpc-js";
import { BadRequest, ErrorInfo, RetryInfo } from "./gen/google/rpc/error_details";
import { Status } from "./gen/google/rpc/status";
import { ErrorReason } from "./gen/rememberstack/v1/errors";

export const ERROR_DOMAIN = "rememberstack";
const DETAILS_KEY = "grpc-status-details-bin";
const TYPE_PREFIX = "type.googleapis.com/";

/** One bad request field: a dotted path such as `time_scope.as_of.valid_at`. */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * A failed RememberStack call. `reason` is `ErrorInfo.reason` ("VERSION_NOT_PARKED"): branch on
 * it or on `code`, never on `message`. `reasonValue` is the matching `ErrorReason` value
 * (the reason with the `ERROR_REASON_` prefix), or ERROR_REASON_UNSPECIFIED when unknown.
 */
export class RememberStackError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly reason: string,
    readonly domain: string,
    readonly errorMetadata: Record<string, string>,
    readonly fieldViolations: FieldViolation[],
    readonly retryDelaySeconds: number | undefined,
    readonly metadata: Metadata,
  ) {
    super(`${status[code]}${reason ? ` [${reason}]` : ""}: ${details}`);
    this.name = "RememberStackError";
  }

  get reasonValue(): ErrorReason {
    const value = (ErrorReason as unknown as Record<string, number>)[`ERROR_REASON_${this.reason}`];
    return value === undefined ? ErrorReason.ERROR_REASON_UNSPECIFIED : (value as ErrorReason);
  }
}

function isServiceError(error: unknown): error is ServiceError {
  return typeof error === "object" && error !== null && "code" in error && "metadata" in error;
}

/** The typed error of a failed call; anything that is not a gRPC error is returned as is. */
export function decodeError(error: unknown): unknown {
  if (error instanceof RememberStackError || !isServiceError(error)) {
    return error;
  }
  let reason = "";
  let domain = "";
  let errorMetadata: Record<string, string> = {};
  const fieldViolations: FieldViolation[] = [];
  let retryDelaySeconds: number | undefined;
  for (const raw of error.metadata.get(DETAILS_KEY)) {
    const decoded = Status.decode(typeof raw === "string" ? Buffer.from(raw, "base64") : raw);
    for (const detail of decoded.details) {
      const type = detail.typeUrl.startsWith(TYPE_PREFIX) ? detail.typeUrl.slice(TYPE_PREFIX.length) : detail.typeUrl;
      if (type === "google.rpc.ErrorInfo") {
        const info = ErrorInfo.decode(detail.value);
        reason = info.reason;
        domain = info.domain;
        errorMetadata = info.metadata;
      } else if (type === "google.rpc.BadRequest") {
        for (const v of BadRequest.decode(detail.value).fieldViolations) {
          fieldViolations.push({ field: v.field, description: v.description });
        }
      } else if (type === "google.rpc.RetryInfo") {
        const delay = RetryInfo.decode(detail.value).retryDelay;
        if (delay) {
          retryDelaySeconds = Number(delay.seconds) + delay.nanos / 1e9;
        }
      }
    }
  }
  return new RememberStackError(
    error.code,
    error.details,
    reason,
    domain,
    errorMetadata,
    fieldViolations,
    retryDelaySeconds,
    error.metadata,
  );
}
