#!/usr/bin/env bash
# Build and run the Go quickstart in GOPATH mode against Debian's Go packages (make
# install-clients), for machines without the Go module proxy. Arguments go to `go run`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/github.com/rememberstack/rememberstack/clients"
ln -s "$here" "$gopath/src/github.com/rememberstack/rememberstack/clients/go"
cd "$gopath/src/github.com/rememberstack/rememberstack/clients/go"
export GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS=""
# grpc-go before 1.40 (Debian 12 ships 1.33) applies the service config's retries only then.
export GRPC_GO_RETRY=on
go vet ./client ./examples/...
go run ./examples/quickstart "$@"
