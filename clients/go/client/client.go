// Package client connects to the four RememberStack services with retries, default deadlines,
// bearer credentials and typed errors. The generated stubs are in
// github.com/rememberstack/rememberstack/clients/go/rememberstack/v1 (package rememberstackv1).
package client

import (
	"context"
	_ "embed" // the retry service config
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	rsv1 "github.com/rememberstack/rememberstack/clients/go/rememberstack/v1"
)

// ServiceConfig retries UNAVAILABLE up to 4 attempts on reads and repeat-safe writes
// (clients/service-config.json). grpc-go before 1.40 applies it only with GRPC_GO_RETRY=on.
//
//go:embed service_config.json
var ServiceConfig string

// DefaultTimeout is the deadline of unary and client-streaming calls whose context has none.
const DefaultTimeout = 30 * time.Second

// Endpoints says where each service listens (host:port).
type Endpoints struct {
	Ingest, Adjudicator, Query, Graph string
}

// LocalEndpoints are the ports `rememberstack up` binds by default: ingest first, graph last.
func LocalEndpoints(host string, basePort int) Endpoints {
	at := func(offset int) string { return fmt.Sprintf("%s:%d", host, basePort+offset) }
	return Endpoints{Ingest: at(0), Adjudicator: at(1), Query: at(2), Graph: at(3)}
}

// Options tune Dial; the zero value means plaintext, no token, DefaultTimeout.
type Options struct {
	// TransportCredentials makes the channels TLS; nil means plaintext.
	TransportCredentials credentials.TransportCredentials
	// BearerToken is sent as `authorization: Bearer <token>` on every call.
	BearerToken string
	// Timeout replaces DefaultTimeout; negative means no default deadline.
	Timeout time.Duration
}

// Clients holds one stub per service. Close releases their connections.
type Clients struct {
	Ingest      rsv1.IngestServiceClient
	Adjudicator rsv1.AdjudicatorServiceClient
	Query       rsv1.QueryServiceClient
	Graph       rsv1.GraphServiceClient
	conns       []*grpc.ClientConn
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

// RequireTransportSecurity is false so a loopback deployment without TLS can take tokens too.
func (bearer) RequireTransportSecurity() bool { return false }

func withDeadline(timeout time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, has := ctx.Deadline(); !has && timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// Dial opens a connection per distinct address (connections are lazy, as grpc.Dial's are).
func Dial(endpoints Endpoints, options Options) (*Clients, error) {
	timeout := options.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	dialOptions := []grpc.DialOption{
		grpc.WithDefaultServiceConfig(ServiceConfig),
		grpc.WithChainUnaryInterceptor(withDeadline(timeout)),
	}
	if options.TransportCredentials != nil {
		dialOptions = append(dialOptions, grpc.WithTransportCredentials(options.TransportCredentials))
	} else {
		dialOptions = append(dialOptions, grpc.WithInsecure())
	}
	if options.BearerToken != "" {
		dialOptions = append(dialOptions, grpc.WithPerRPCCredentials(bearer(options.BearerToken)))
	}
	clients := &Clients{}
	byAddress := map[string]*grpc.ClientConn{}
	conn := func(address string) (*grpc.ClientConn, error) {
		if existing, ok := byAddress[address]; ok {
			return existing, nil
		}
		opened, err := grpc.Dial(address, dialOptions...)
		if err != nil {
			return nil, err
		}
		byAddress[address] = opened
		clients.conns = append(clients.conns, opened)
		return opened, nil
	}
	for _, target := range []struct {
		address string
		bind    func(*grpc.ClientConn)
	}{
		{endpoints.Ingest, func(c *grpc.ClientConn) { clients.Ingest = rsv1.NewIngestServiceClient(c) }},
		{endpoints.Adjudicator, func(c *grpc.ClientConn) { clients.Adjudicator = rsv1.NewAdjudicatorServiceClient(c) }},
		{endpoints.Query, func(c *grpc.ClientConn) { clients.Query = rsv1.NewQueryServiceClient(c) }},
		{endpoints.Graph, func(c *grpc.ClientConn) { clients.Graph = rsv1.NewGraphServiceClient(c) }},
	} {
		opened, err := conn(target.address)
		if err != nil {
			clients.Close()
			return nil, err
		}
		target.bind(opened)
	}
	return clients, nil
}

// Close closes every connection.
func (c *Clients) Close() {
	for _, conn := range c.conns {
		_ = conn.Close()
	}
}

// WaitUntilSettled follows WatchReadiness until every version is ready or dead-lettered and
// returns their last states, in the order asked. ctx bounds the wait.
func (c *Clients) WaitUntilSettled(ctx context.Context, namespace string, versionIDs []string) ([]*rsv1.VersionReadiness, error) {
	stream, err := c.Ingest.WatchReadiness(ctx, &rsv1.WatchReadinessRequest{Namespace: namespace, VersionIds: versionIDs})
	if err != nil {
		return nil, DecodeError(err)
	}
	latest := map[string]*rsv1.VersionReadiness{}
	for {
		update, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, DecodeError(err)
		}
		for _, version := range update.Versions {
			latest[version.VersionId] = version
		}
		if update.AllSettled {
			break
		}
	}
	states := make([]*rsv1.VersionReadiness, 0, len(versionIDs))
	for _, id := range versionIDs {
		if state, ok := latest[id]; ok {
			states = append(states, state)
		}
	}
	return states, nil
}
