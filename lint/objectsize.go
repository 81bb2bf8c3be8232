package lint

import "fmt"

// RuleObjectSize reports an object the server would refuse for its size:
// over the API server's request body limit (an error, in the server's own
// words), or over etcd's default request limit (a warning: the API server
// accepts the request, etcd refuses to store it unless its
// --max-request-bytes was raised).
const RuleObjectSize = "input/object-size"

// etcdDefaultMaxRequestBytes is etcd's default --max-request-bytes
// (go.etcd.io/etcd/server/v3/embed.DefaultMaxRequestBytes, 1.5 MiB).
const etcdDefaultMaxRequestBytes = 1536 * 1024

// apiServerMaxRequestBytes is the API server's limit on a request body:
// MaxRequestBodyBytes as k8s.io/apiserver/pkg/server.NewConfig sets it
// (3 MiB), which the create and update handlers enforce (limitedReadBody in
// k8s.io/apiserver/pkg/endpoints/handlers). It is written out: importing
// the server package would cost every run its initialisation.
const apiServerMaxRequestBytes = 3 * 1024 * 1024

// objectSize returns the finding for an object over one of the limits, by
// the size of the JSON kubectl sends; ok is false for an object within them.
func (c *checked) objectSize() (f Finding, ok bool) {
	size := int64(len(c.obj.JSON))
	switch {
	case size > apiServerMaxRequestBytes:
		// The server's words: apierrors.NewRequestEntityTooLargeError(
		// fmt.Sprintf("limit is %d", limit)), as limitedReadBody returns it.
		return c.at(RuleObjectSize, SeverityError, "", fmt.Sprintf(
			"%s %s is %d bytes as JSON: the API server refuses it with 413 \"Request entity too large: limit is %d\" (its request body limit, 3 MiB)",
			c.obj.Kind, c.ref.Name, size, apiServerMaxRequestBytes)), true
	case size > etcdDefaultMaxRequestBytes:
		return c.at(RuleObjectSize, SeverityWarning, "", fmt.Sprintf(
			"%s %s is %d bytes as JSON, over etcd's default request limit of %d bytes (1.5 MiB, --max-request-bytes): the API server passes it on, and etcd refuses to store it (\"etcdserver: request is too large\") unless the limit was raised",
			c.obj.Kind, c.ref.Name, size, etcdDefaultMaxRequestBytes)), true
	}
	return Finding{}, false
}
