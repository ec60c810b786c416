// Quickstart against a running stack (`rememberstack up`): ingest a document, wait until it is
// ready, read facts at an instant, walk the graph around an entity, and decode a bad request.
// Environment: REMEMBERSTACK_HOST (127.0.0.1), REMEMBERSTACK_BASE_PORT (50051), REMEMBERSTACK_TOKEN.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/rememberstack/rememberstack/clients/go/client"
	rsv1 "github.com/rememberstack/rememberstack/clients/go/rememberstack/v1"
)

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func main() {
	basePort, err := strconv.Atoi(env("REMEMBERSTACK_BASE_PORT", "50051"))
	if err != nil {
		log.Fatalf("REMEMBERSTACK_BASE_PORT: %v", err)
	}
	rs, err := client.Dial(client.LocalEndpoints(env("REMEMBERSTACK_HOST", "127.0.0.1"), basePort),
		client.Options{BearerToken: os.Getenv("REMEMBERSTACK_TOKEN")})
	if err != nil {
		log.Fatal(err)
	}
	defer rs.Close()
	ctx := context.Background()
	namespace := fmt.Sprintf("go-example-%d", time.Now().UnixNano())

	ingested, err := rs.Ingest.IngestDocument(ctx, &rsv1.IngestDocumentRequest{
		Namespace:          namespace,
		MediaType:          "text/plain",
		Title:              "Team notes",
		Content:            []byte("Ravi Patel leads the payments team. Ravi Patel works with Dana Kim."),
		SourceModifiedTime: timestamppb.New(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		log.Fatal(client.DecodeError(err))
	}
	fmt.Printf("ingested version %s (created=%v)\n", ingested.VersionId, ingested.Created)

	waitCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	states, err := rs.WaitUntilSettled(waitCtx, namespace, []string{ingested.VersionId})
	if err != nil || len(states) != 1 || !states[0].Ready {
		log.Fatalf("version not ready: %v %v", states, err)
	}
	fmt.Printf("ready with %d claims\n", states[0].ClaimCount)

	// The time scope is a oneof: set exactly one wrapper (TimeScope_At, TimeScope_AsOf, ...).
	facts, err := rs.Query.FactsContext(ctx, &rsv1.FactsContextRequest{
		Namespace: namespace,
		Query:     "payments team",
		TimeScope: &rsv1.TimeScope{Scope: &rsv1.TimeScope_At{At: &rsv1.AtScope{ValidAt: timestamppb.Now()}}},
	})
	if err != nil {
		log.Fatal(client.DecodeError(err))
	}
	var subject *rsv1.EntityRef
	for _, fact := range facts.Facts {
		// Enums print their names; int64 fields (EstimatedTotal) are int64.
		fmt.Printf("fact: %s (evidence %d, %s)\n", fact.Label, fact.EvidenceCount, fact.Kind)
		if subject == nil && fact.GetSubject().GetEntityId() != "" {
			subject = fact.Subject
		}
	}
	fmt.Printf("estimated total %d\n", facts.GetTruncation().GetEstimatedTotal())
	if len(facts.Facts) == 0 || subject == nil {
		log.Fatal("FactsContext returned no fact with a subject")
	}
	if _, isAt := facts.TemporalScope.GetScope().(*rsv1.TimeScope_At); !isAt {
		log.Fatalf("temporal scope is %T, not at", facts.TemporalScope.GetScope())
	}

	neighborhood, err := rs.Graph.GraphNeighborhood(ctx, &rsv1.GraphNeighborhoodRequest{
		Namespace: namespace, EntityId: subject.EntityId, Hops: 1, PageSize: 50,
	})
	if err != nil {
		log.Fatal(client.DecodeError(err))
	}
	for _, node := range neighborhood.Nodes {
		fmt.Printf("node: %s (hop %d)\n", node.Name, node.Hop)
	}
	if len(neighborhood.Nodes) == 0 || neighborhood.Nodes[0].Hop != 0 {
		log.Fatal("the start node is missing")
	}

	_, err = rs.Query.FactsContext(ctx, &rsv1.FactsContextRequest{Namespace: namespace, Query: "x", K: 31})
	var bad *client.Error
	if !errors.As(client.DecodeError(err), &bad) || bad.ReasonValue() != rsv1.ErrorReason_ERROR_REASON_INVALID_ARGUMENT {
		log.Fatalf("k=31: expected INVALID_ARGUMENT, got %v", err)
	}
	named := false
	for _, violation := range bad.FieldViolations {
		fmt.Printf("invalid: %s: %s\n", violation.Field, violation.Description)
		named = named || violation.Field == "k"
	}
	if !named {
		log.Fatal("k is not named")
	}
	fmt.Println("go example: ok")
}
