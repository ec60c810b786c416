// RememberStack's TypeScript client: ts-proto stubs plus connection helpers and typed errors.
export * from "./client";
export * from "./errors";
export * as adjudicator from "./gen/rememberstack/v1/adjudicator_service";
export * as common from "./gen/rememberstack/v1/common";
export * as document from "./gen/rememberstack/v1/document";
export * as entity from "./gen/rememberstack/v1/entity";
export * as errorReasons from "./gen/rememberstack/v1/errors";
export * as evidence from "./gen/rememberstack/v1/evidence";
export * as fact from "./gen/rememberstack/v1/fact";
export * as graph from "./gen/rememberstack/v1/graph_service";
export * as ingest from "./gen/rememberstack/v1/ingest_service";
export * as query from "./gen/rememberstack/v1/query_service";
