package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ReadVerbs are the only verbs a read-only user is granted.
var ReadVerbs = []string{"get", "list", "watch"}

// User is a ServiceAccount of the cluster with a token and a kubeconfig for it.
type User struct {
	// Namespace and Name are the ServiceAccount's.
	Namespace, Name string
	// Username is what the API server (and its audit log) calls the user:
	// system:serviceaccount:NAMESPACE:NAME.
	Username string
	// Token is a bearer token for the ServiceAccount (TokenRequest, one hour).
	Token string
	// Kubeconfig is a kubeconfig file whose current context, named Context,
	// authenticates with Token; its namespace is Namespace.
	Kubeconfig string
	Context    string
}

// CreateUser creates the ServiceAccount namespace/name (and the namespace), binds it to a
// ClusterRole of the same name holding rules, cluster-wide (so that all-namespaces lists
// work), and returns it with a token from the TokenRequest API and a kubeconfig. With no
// rules nothing is bound: the user may only do what every authenticated user may
// (discovery, /version).
func (c *Cluster) CreateUser(ctx context.Context, namespace, name string, rules []rbacv1.PolicyRule) (*User, error) {
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return nil, fmt.Errorf("create user %s/%s: clientset: %w", namespace, name, err)
	}
	if err := c.EnsureNamespace(ctx, namespace, name); err != nil {
		return nil, err
	}
	u := &User{Namespace: namespace, Name: name, Username: "system:serviceaccount:" + namespace + ":" + name, Context: name}
	if len(rules) > 0 {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create cluster role %s: %w", name, err)
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
		}
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create cluster role binding %s: %w", name, err)
		}
	}
	expiry := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	u.Token = tr.Status.Token
	u.Kubeconfig = filepath.Join(c.Dir, "kubeconfig-"+namespace+"-"+name)
	if err := WriteKubeconfig(u.Kubeconfig, u.Context, c.Server, u.Token, namespace); err != nil {
		return nil, err
	}
	return u, nil
}

// WriteKubeconfig writes a kubeconfig whose one context, contextName, reaches server (TLS
// verification off, as the test API server's certificate is self-signed) with a bearer
// token, in namespace.
func WriteKubeconfig(path, contextName, server, token, namespace string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName, Namespace: namespace}
	cfg.CurrentContext = contextName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests read.
type AuditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// AuditEvents reads the cluster's audit log and returns the events of one user, in order.
func (c *Cluster) AuditEvents(username string) ([]AuditEvent, error) {
	if c.AuditLogPath == "" {
		return nil, fmt.Errorf("the cluster runs without an audit log (ClusterOptions.NoAuditLog)")
	}
	f, err := os.Open(c.AuditLogPath)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	defer f.Close()
	var events []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", c.AuditLogPath, err)
		}
		if e.User.Username == username {
			events = append(events, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", c.AuditLogPath, err)
	}
	return events, nil
}

// VerbCounts counts events by verb, sorted by verb for messages.
func VerbCounts(events []AuditEvent) []string {
	n := map[string]int{}
	for _, e := range events {
		n[e.Verb]++
	}
	out := make([]string, 0, len(n))
	for v, k := range n {
		out = append(out, fmt.Sprintf("%s=%d", v, k))
	}
	sort.Strings(out)
	return out
}

// viewClusterRole is the built-in ClusterRole whose rules the API server aggregates into
// the view role (and so into edit and admin): what nearly every read-only user holds.
const viewClusterRole = "system:aggregate-to-view"

// viewRules reads the rules of viewClusterRole from the cluster's API server, so that the
// tests run as a user holding exactly what this Kubernetes version's view role grants, not
// a role written for the tests.
func viewRules(ctx context.Context, c *Cluster) ([]rbacv1.PolicyRule, error) {
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return nil, fmt.Errorf("read %s: clientset: %w", viewClusterRole, err)
	}
	role, err := cs.RbacV1().ClusterRoles().Get(ctx, viewClusterRole, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", viewClusterRole, err)
	}
	if len(role.Rules) == 0 {
		return nil, fmt.Errorf("%s has no rules", viewClusterRole)
	}
	return role.Rules, nil
}
