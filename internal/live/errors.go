package live

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Error is a failure to read the cluster, already worded for the user: one
// line naming the context and what was being read. Reason classifies it.
type Error struct {
	Context string
	Reason  Reason
	msg     string
	cause   error
}

// Reason classifies an Error.
type Reason string

// The reasons a read fails.
const (
	// Unreachable: no answer from the API server (connection refused, DNS,
	// timeout, TLS).
	Unreachable Reason = "Unreachable"
	// Unauthorized: the server rejected the credentials (401): a token that
	// is invalid or expired.
	Unauthorized Reason = "Unauthorized"
	// Forbidden: the user may not make the request (403).
	Forbidden Reason = "Forbidden"
	// NotFound: the object or resource type does not exist (404).
	NotFound Reason = "NotFound"
	// Other: anything else the server or client said.
	Other Reason = "Other"
)

func (e *Error) Error() string { return e.msg }

// Unwrap returns the client's error.
func (e *Error) Unwrap() error { return e.cause }

// IsNotFound reports whether err is an Error for a missing object.
func IsNotFound(err error) bool {
	var le *Error
	return errors.As(err, &le) && le.Reason == NotFound
}

// Explain turns a client error met while doing what ("list deployments.apps
// in namespace "x"") into an *Error: one line that names the context and
// the server's own words, without credentials.
func (c *Client) Explain(err error, what string) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	e := &Error{Context: c.Context, cause: err}
	var status apierrors.APIStatus
	switch {
	case apierrors.IsUnauthorized(err):
		e.Reason = Unauthorized
		e.msg = fmt.Sprintf("context %q: the API server at %s rejected the credentials (401 Unauthorized) when asked to %s: the token or certificate is invalid or expired",
			c.Context, c.Server, what)
	case apierrors.IsForbidden(err):
		e.Reason = Forbidden
		e.msg = fmt.Sprintf("context %q: %s", c.Context, serverMessage(err))
	case apierrors.IsNotFound(err):
		e.Reason = NotFound
		e.msg = fmt.Sprintf("context %q: %s", c.Context, serverMessage(err))
		if errors.As(err, &status) && status.Status().Details != nil && status.Status().Details.Name != "" && !strings.Contains(e.msg, " namespace ") {
			e.msg += " (" + what + ")"
		}
	case unreachable(err):
		e.Reason = Unreachable
		e.msg = fmt.Sprintf("context %q: cannot reach the API server at %s: %s", c.Context, c.Server, networkCause(err))
	default:
		e.Reason = Other
		e.msg = fmt.Sprintf("context %q: %s: %s", c.Context, what, err.Error())
	}
	e.msg = c.scrub(oneLine(e.msg))
	return e
}

// serverMessage is the API server's message for a status error.
func serverMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

// unreachable reports whether err means the API server did not answer.
func unreachable(err error) bool {
	var ue *url.Error
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &ue) || errors.As(err, &ne) || errors.As(err, &oe) {
		return true
	}
	// Discovery and the resource builder flatten some errors to text.
	msg := err.Error()
	for _, s := range []string{"connection refused", "no such host", "i/o timeout", "connection reset", "dial tcp", "tls:", "x509:"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// networkCause is the innermost network error's text, without the request
// URL that client-go puts in front of it.
func networkCause(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "dial tcp"); i >= 0 {
		return msg[i:]
	}
	return msg
}

// oneLine joins a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// scrub removes the kubeconfig user's credentials from a message.
func (c *Client) scrub(s string) string {
	for _, secret := range c.secrets {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}
