// Quickstart against a running stack (`rememberstack up`): ingest a document, wait until it is
// ready, read facts at an instant, walk the graph around an entity, and decode a bad request.
//   npm run build && node dist/examples/quickstart.js            (ports 50051-50054 on 127.0.0.1)
//   REMEMBERSTACK_HOST=... REMEMBERSTACK_BASE_PORT=... REMEMBERSTACK_TOKEN=... for elsewhere
import assert from "node:assert/strict";
import { connect, localEndpoints, RememberStackError, unary, waitUntilSettled } from "../src";
import { ErrorReason } from "../src/gen/rememberstack/v1/errors";
import { FactKind } from "../src/gen/rememberstack/v1/fact";
import { GraphNeighborhoodRequest } from "../src/gen/rememberstack/v1/graph_service";
import { IngestDocumentRequest } from "../src/gen/rememberstack/v1/ingest_service";
import { FactsContextRequest } from "../src/gen/rememberstack/v1/query_service";

async function main(): Promise<void> {
  const host = process.env.REMEMBERSTACK_HOST ?? "127.0.0.1";
  const basePort = Number(process.env.REMEMBERSTACK_BASE_PORT ?? "50051");
  const rs = connect(localEndpoints(host, basePort), { bearerToken: process.env.REMEMBERSTACK_TOKEN });
  const namespace = `node-example-${Date.now()}`;
  try {
    const ingested = await unary(rs.ingest, rs.ingest.ingestDocument, IngestDocumentRequest.fromPartial({
      namespace,
      mediaType: "text/plain",
      title: "Team notes",
      // bytes fields are Uint8Arrays (a Buffer is one).
      content: Buffer.from("Ravi Patel leads the payments team. Ravi Patel works with Dana Kim."),
      sourceModifiedTime: new Date("2025-03-01T09:00:00Z"),
    }));
    console.log(`ingested version ${ingested.versionId} (created=${ingested.created})`);

    const [readiness] = await waitUntilSettled(rs.ingest, [ingested.versionId], { namespace, timeoutMs: 120_000 });
    assert.ok(readiness?.ready, `version not ready: ${JSON.stringify(readiness)}`);
    console.log(`ready with ${readiness.claimCount} claims`);

    // The time scope is a oneof: ts-proto models it as a tagged union on `$case`.
    const facts = await unary(rs.query, rs.query.factsContext, FactsContextRequest.fromPartial({
      namespace,
      query: "payments team",
      timeScope: { scope: { $case: "at", at: { validAt: new Date() } } },
    }));
    for (const fact of facts.facts) {
      // Enums are numeric TypeScript enums; int64 fields (estimatedTotal) are bigints.
      console.log(`fact: ${fact.label} (evidence ${fact.evidenceCount}, ${FactKind[fact.kind]})`);
    }
    console.log(`estimated total ${facts.truncation?.estimatedTotal ?? 0n} (${typeof facts.truncation?.estimatedTotal})`);
    assert.ok(facts.facts.length > 0, "FactsContext returned no facts");
    assert.equal(facts.temporalScope?.scope?.$case, "at");

    const subject = facts.facts.find((f) => f.subject?.entityId)?.subject;
    assert.ok(subject, "no fact with a subject entity");
    const neighborhood = await unary(rs.graph, rs.graph.graphNeighborhood, GraphNeighborhoodRequest.fromPartial({
      namespace,
      entityId: subject.entityId,
      hops: 1,
      pageSize: 50,
    }));
    for (const node of neighborhood.nodes) {
      console.log(`node: ${node.name} (hop ${node.hop})`);
    }
    assert.ok(neighborhood.nodes.some((n) => n.hop === 0), "the start node is missing");

    try {
      await unary(rs.query, rs.query.factsContext, FactsContextRequest.fromPartial({ namespace, query: "x", k: 31 }));
      assert.fail("k=31 was accepted");
    } catch (error) {
      assert.ok(error instanceof RememberStackError, `not decoded: ${error}`);
      assert.equal(error.reasonValue, ErrorReason.ERROR_REASON_INVALID_ARGUMENT);
      for (const violation of error.fieldViolations) {
        console.log(`invalid: ${violation.field}: ${violation.description}`);
      }
      assert.ok(error.fieldViolations.some((v) => v.field === "k"), "k is not named");
    }
    console.log("node example: ok");
  } finally {
    rs.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
