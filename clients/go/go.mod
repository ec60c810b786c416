module github.com/rememberstack/rememberstack/clients/go

// The generated code and the helper build with protoc-gen-go 1.28 / grpc-go 1.33 and newer.
// In module mode run `go mod tidy` once (it adds google.golang.org/genproto and go.sum);
// without the module proxy, build in GOPATH mode against Debian's packages (see README.md).
go 1.19

require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
