// Package e2e runs kubectl-workload against a real control plane: etcd and kube-apiserver
// at the Kubernetes version the plugin models, built by hack/install-control-plane.sh.
//
// The tests only run when KUBECTL_WORKLOAD_E2E=1; then a control plane that cannot start
// is a test failure, never a skip:
//
//	KUBECTL_WORKLOAD_E2E=1 KUBECTL_WORKLOAD_E2E_BIN=$(hack/install-control-plane.sh) go test ./test/e2e/ -v
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-workload/kubectl-workload/internal/version"
)

// Environment variables that drive the end-to-end tests.
const (
	// EnvEnable must be "1" for the end-to-end tests to run.
	EnvEnable = "KUBECTL_WORKLOAD_E2E"
	// EnvBinDir names the directory that holds etcd, kube-apiserver and kubectl, as printed
	// by hack/install-control-plane.sh.
	EnvBinDir = "KUBECTL_WORKLOAD_E2E_BIN"
	// EnvCorpus optionally names the real-world manifest corpus directory.
	EnvCorpus = "KUBECTL_WORKLOAD_CORPUS"
)

// KubernetesVersion is the version of the control plane the tests expect: the release the
// plugin embeds.
const KubernetesVersion = version.KubernetesRelease

// HowToRun is the message shown when the end-to-end tests are skipped.
const HowToRun = "end-to-end tests need a real control plane; run them with " +
	EnvEnable + "=1 " + EnvBinDir + "=$(hack/install-control-plane.sh) go test ./test/e2e/ -v"

// Enabled reports whether the end-to-end tests were asked for (EnvEnable is "1").
func Enabled() bool {
	return os.Getenv(EnvEnable) == "1"
}

// BinDir returns the directory named by EnvBinDir, after checking that it holds etcd and
// kube-apiserver.
func BinDir() (string, error) {
	dir := os.Getenv(EnvBinDir)
	if dir == "" {
		return "", fmt.Errorf("%s is not set; set it to the directory printed by hack/install-control-plane.sh", EnvBinDir)
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		p := filepath.Join(dir, b)
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w (run hack/install-control-plane.sh)", EnvBinDir, dir, err)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", p)
		}
	}
	return dir, nil
}

// ClusterOptions configure StartCluster.
type ClusterOptions struct {
	// BinDir holds etcd and kube-apiserver (and optionally kubectl and the other components).
	BinDir string
	// Dir is the working directory for data, certificates, logs and the kubeconfig. It
	// must exist; the caller owns it (for example t.TempDir() or os.MkdirTemp).
	Dir string
	// ReadyTimeout bounds the wait for /readyz; zero means two minutes.
	ReadyTimeout time.Duration
	// ExtraAPIServerFlags are appended to kube-apiserver's command line.
	ExtraAPIServerFlags []string
	// NoAuditLog turns off the audit log. By default kube-apiserver records
	// every request at the Metadata level (user, verb, resource, response
	// code; no bodies) in Dir/audit.jsonl (not a *.log, so LogTail leaves it out), as AuditPolicy says: the read-only
	// tests read it to prove which verbs a user sent.
	NoAuditLog bool
}

// AuditPolicy is the audit policy StartCluster gives kube-apiserver: every
// request, once, when its response is complete, at the Metadata level.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// Cluster is a running etcd and kube-apiserver pair on loopback. The zero value is not
// usable; create one with StartCluster and release it with Stop.
type Cluster struct {
	// Dir is the working directory given in ClusterOptions.
	Dir string
	// BinDir is the directory the binaries came from.
	BinDir string
	// Server is the API server's URL, for example https://127.0.0.1:41234.
	Server string
	// Token is the bearer token of a system:masters user.
	Token string
	// Kubeconfig is the path of a kubeconfig file for Server and Token.
	Kubeconfig string
	// StartupDuration is how long StartCluster took to reach /readyz.
	StartupDuration time.Duration
	// AuditLogPath is kube-apiserver's audit log (one JSON audit.k8s.io/v1
	// Event per line), or "" when ClusterOptions.NoAuditLog was set.
	AuditLogPath string

	mu        sync.Mutex
	processes []*Process
}

// Process is a child process started by a Cluster, with its output in a log file.
type Process struct {
	// Name identifies the process in messages, for example "kube-apiserver".
	Name string
	// LogPath is the file that receives its stdout and stderr.
	LogPath string

	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// Exited reports whether the process has exited, and with which error.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// PID returns the process id.
func (p *Process) PID() int {
	return p.cmd.Process.Pid
}

// stop ends the process by its PID: SIGTERM, then SIGKILL after grace.
func (p *Process) stop(grace time.Duration) error {
	if exited, _ := p.Exited(); exited {
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s (pid %d): send SIGTERM: %w", p.Name, p.PID(), err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s (pid %d): kill: %w", p.Name, p.PID(), err)
	}
	<-p.done
	return nil
}

// StartCluster starts etcd and kube-apiserver on free loopback ports, each with its own
// data directory under opts.Dir, waits until the API server answers /readyz, and writes a
// kubeconfig. The API server runs with --allow-privileged=true, token authentication for a
// system:masters user, RBAC, and service-account keys generated here. On error everything
// already started is stopped; the returned error includes the tail of the logs.
func StartCluster(ctx context.Context, opts ClusterOptions) (*Cluster, error) {
	start := time.Now()
	if opts.BinDir == "" || opts.Dir == "" {
		return nil, errors.New("start cluster: BinDir and Dir are required")
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	c := &Cluster{Dir: opts.Dir, BinDir: opts.BinDir}
	fail := func(err error) (*Cluster, error) {
		tail := c.LogTail(40)
		if stopErr := c.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		return nil, fmt.Errorf("%w\n%s", err, tail)
	}

	token, err := randomHex(16)
	if err != nil {
		return fail(fmt.Errorf("start cluster: token: %w", err))
	}
	c.Token = token
	ports, err := freePorts(3)
	if err != nil {
		return fail(fmt.Errorf("start cluster: %w", err))
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]

	// etcd.
	etcdData := filepath.Join(opts.Dir, "etcd-data")
	clientURL := "http://127.0.0.1:" + strconv.Itoa(etcdClient)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(etcdPeer)
	etcd, err := c.StartProcess("etcd", filepath.Join(opts.BinDir, "etcd"),
		"--name=e2e",
		"--data-dir="+etcdData,
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL,
		// A throwaway store: durability buys nothing and fsync costs seconds on busy disks.
		"--unsafe-no-fsync=true",
	)
	if err != nil {
		return fail(err)
	}

	// Credentials for kube-apiserver.
	pki := filepath.Join(opts.Dir, "pki")
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return fail(fmt.Errorf("start cluster: %w", err))
	}
	saKey, saPub := filepath.Join(pki, "sa.key"), filepath.Join(pki, "sa.pub")
	if err := writeServiceAccountKeys(saKey, saPub); err != nil {
		return fail(err)
	}
	tokens := filepath.Join(pki, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return fail(fmt.Errorf("start cluster: write %s: %w", tokens, err))
	}

	if err := waitTCP(ctx, etcd, "127.0.0.1:"+strconv.Itoa(etcdClient), 30*time.Second); err != nil {
		return fail(err)
	}

	args := []string{
		"--etcd-servers=" + clientURL,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--cert-dir=" + filepath.Join(opts.Dir, "apiserver-certs"),
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saPub,
		"--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
	}
	if !opts.NoAuditLog {
		policy := filepath.Join(opts.Dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(AuditPolicy), 0o600); err != nil {
			return fail(fmt.Errorf("start cluster: write %s: %w", policy, err))
		}
		c.AuditLogPath = filepath.Join(opts.Dir, "audit.jsonl")
		args = append(args, "--audit-policy-file="+policy, "--audit-log-path="+c.AuditLogPath)
	}
	args = append(args, opts.ExtraAPIServerFlags...)
	api, err := c.StartProcess("kube-apiserver", filepath.Join(opts.BinDir, "kube-apiserver"), args...)
	if err != nil {
		return fail(err)
	}
	c.Server = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	if err := c.waitReady(ctx, api, opts.ReadyTimeout); err != nil {
		return fail(err)
	}

	c.Kubeconfig = filepath.Join(opts.Dir, "kubeconfig")
	if err := c.writeKubeconfig(c.Kubeconfig); err != nil {
		return fail(err)
	}
	// Without kube-controller-manager nobody creates the "default" service account, and
	// the ServiceAccount admission plugin then refuses every Pod in the namespace.
	if err := c.EnsureNamespace(ctx, "default"); err != nil {
		return fail(err)
	}
	c.StartupDuration = time.Since(start)
	return c, nil
}

// StartProcess starts bin with args as a child of the cluster, its stdout and stderr in
// Dir/NAME.log. Stop ends it. Use it for extra components (kube-controller-manager,
// kube-scheduler, kwok) pointed at Kubeconfig.
func (c *Cluster) StartProcess(name, bin string, args ...string) (*Process, error) {
	logPath := filepath.Join(c.Dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Dir = c.Dir
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.processes = append(c.processes, p)
	c.mu.Unlock()
	return p, nil
}

// Stop ends every process the cluster started, newest first, by PID. It is safe to call
// more than once and on a partly started cluster.
func (c *Cluster) Stop() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	procs := c.processes
	c.processes = nil
	c.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		if err := procs[i].stop(15 * time.Second); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Processes returns the processes the cluster has started and not yet stopped.
func (c *Cluster) Processes() []*Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Process(nil), c.processes...)
}

// LogTail returns the last n lines of every log file in Dir, each under a header.
func (c *Cluster) LogTail(n int) string {
	if c == nil || c.Dir == "" {
		return ""
	}
	logs, _ := filepath.Glob(filepath.Join(c.Dir, "*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			fmt.Fprintf(&b, "==> %s: %v\n", l, err)
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		fmt.Fprintf(&b, "==> %s (last %d lines) <==\n%s\n", l, len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}

// RESTConfig returns a client configuration for the cluster's system:masters user. The
// API server's certificate is self-signed, so TLS verification is off.
func (c *Cluster) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            c.Server,
		BearerToken:     c.Token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             200,
		Burst:           400,
		UserAgent:       "kubectl-workload-e2e",
		// Warnings are collected per request (rest.Result.Warnings), not logged.
		WarningHandler: rest.NoWarnings{},
	}
}

// EnsureNamespace creates namespace ns, if it does not exist, with the "default" service
// account that kube-controller-manager would create in a real cluster, and any further
// service accounts named.
func (c *Cluster) EnsureNamespace(ctx context.Context, ns string, serviceAccounts ...string) error {
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		return fmt.Errorf("ensure namespace %s: clientset: %w", ns, err)
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	for _, name := range append([]string{"default"}, serviceAccounts...) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		_, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create service account %s/%s: %w", ns, name, err)
		}
	}
	return nil
}

// Kubectl runs the kubectl binary from BinDir (or, when it has none, the one on PATH)
// against the cluster, and returns its combined output.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) ([]byte, error) {
	bin := filepath.Join(c.BinDir, "kubectl")
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("kubectl"); err != nil {
			return nil, fmt.Errorf("kubectl: not in %s nor on PATH", c.BinDir)
		}
	}
	full := append([]string{"--kubeconfig=" + c.Kubeconfig, "--cache-dir=" + filepath.Join(c.Dir, "kubectl-cache")}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	return cmd.CombinedOutput()
}

func (c *Cluster) writeKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.Server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.Token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "admin", Namespace: "default"}
	cfg.CurrentContext = "e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// waitReady polls /readyz until it answers 200 "ok", the process exits, or timeout.
func (c *Cluster) waitReady(ctx context.Context, p *Process, timeout time.Duration) error {
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // self-signed test server
	}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before it was ready: %v", p.Name, err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Server+"/readyz", nil)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", p.Name, err)
		}
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := client.Do(req)
		if err == nil {
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, lastLines(body.String(), 5))
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready at %s/readyz after %s; last answer: %s", p.Name, c.Server, timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", p.Name, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitTCP waits until addr accepts connections, p exits, or timeout.
func waitTCP(ctx context.Context, p *Process, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before it listened on %s: %v", p.Name, addr, err)
		}
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not listening on %s after %s: %w", p.Name, addr, timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", p.Name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePorts returns n distinct loopback ports that were free a moment ago. They are held
// open together so that the kernel hands out different ones.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeServiceAccountKeys writes a fresh RSA key pair: the private key (PKCS#1) that signs
// service-account tokens and the public key (PKIX) that verifies them.
func writeServiceAccountKeys(keyPath, pubPath string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate service-account key: %w", err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return fmt.Errorf("marshal service-account public key: %w", err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", keyPath, err)
	}
	if err := os.WriteFile(pubPath, pubPEM, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", pubPath, err)
	}
	return nil
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// WaitEstablished waits up to 60s for the CustomResourceDefinitions named by what (kubectl
// arguments: "crd/NAME", or "crd" "--all") to be Established. kubectl wait refuses a CRD it
// reads before the API server has written any status condition ("status.conditions accessor
// error: <nil>"), which happens right after a create, so such a refusal is retried.
func (c *Cluster) WaitEstablished(ctx context.Context, what ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	args := append([]string{"wait", "--for=condition=Established", "--timeout=60s"}, what...)
	for {
		out, err := c.Kubectl(ctx, args...)
		if err == nil || !strings.Contains(string(out), "accessor error") {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(200 * time.Millisecond):
		}
	}
}
