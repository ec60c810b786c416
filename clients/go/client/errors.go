package client

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	rsv1 "github.com/rememberstack/rememberstack/clients/go/rememberstack/v1"
)

// ErrorDomain is ErrorInfo.domain of every RememberStack error.
const ErrorDomain = "rememberstack"

// FieldViolation is one bad request field: a dotted path such as "time_scope.as_of.valid_at".
type FieldViolation struct {
	Field, Description string
}

// Error is a failed call with its decoded google.rpc details. Branch on Code or Reason (the
// ErrorInfo.reason, e.g. "VERSION_NOT_PARKED"), never on Message.
type Error struct {
	Code            codes.Code
	Message         string
	Reason          string
	Domain          string
	Metadata        map[string]string
	FieldViolations []FieldViolation
	// RetryDelay is set when the server says when a retry can succeed (RESOURCE_EXHAUSTED).
	RetryDelay time.Duration
	status     *status.Status
}

func (e *Error) Error() string {
	var violations []string
	for _, v := range e.FieldViolations {
		violations = append(violations, v.Field+": "+v.Description)
	}
	text := fmt.Sprintf("%s [%s]: %s", e.Code, e.Reason, e.Message)
	if len(violations) > 0 && !strings.Contains(e.Message, violations[0]) {
		text += " (" + strings.Join(violations, "; ") + ")"
	}
	return text
}

// GRPCStatus lets status.FromError and status.Code see through the decoded error.
func (e *Error) GRPCStatus() *status.Status { return e.status }

// ReasonValue is Reason as an ErrorReason (the reason with the ERROR_REASON_ prefix), or
// ERROR_REASON_UNSPECIFIED for a reason this build does not know.
func (e *Error) ReasonValue() rsv1.ErrorReason {
	return rsv1.ErrorReason(rsv1.ErrorReason_value["ERROR_REASON_"+e.Reason])
}

// DecodeError turns a gRPC error into *Error; nil stays nil and non-gRPC errors pass through.
func DecodeError(err error) error {
	if err == nil {
		return nil
	}
	if _, already := err.(*Error); already {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	decoded := &Error{Code: st.Code(), Message: st.Message(), status: st}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			decoded.Reason, decoded.Domain, decoded.Metadata = d.Reason, d.Domain, d.Metadata
		case *errdetails.BadRequest:
			for _, v := range d.FieldViolations {
				decoded.FieldViolations = append(decoded.FieldViolations, FieldViolation{v.Field, v.Description})
			}
		case *errdetails.RetryInfo:
			if d.RetryDelay != nil {
				decoded.RetryDelay = time.Duration(d.RetryDelay.Seconds)*time.Second + time.Duration(d.RetryDelay.Nanos)
			}
		}
	}
	return decoded
}
