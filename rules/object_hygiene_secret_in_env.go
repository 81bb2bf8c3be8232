package rules

import (
	"fmt"
	"regexp"
	"strings"
)

// hygieneSecretInEnvRule is hygiene/secret-in-env.
var hygieneSecretInEnvRule = BuiltinRule{
	Meta: Rule{
		ID:       "hygiene/secret-in-env",
		Title:    "Secret given as a literal environment value",
		Severity: SeverityWarning,
		Kinds:    []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "CronJob", "Pod", "PodTemplate"},
		File:     "object_hygiene_secret_in_env.go",
		Description: `An env entry whose name says it holds a credential (DB_PASSWORD, API_KEY,
CLIENT_SECRET, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ...) with a literal
value puts the secret in the manifest, and so in the repository, in the
object the API server stores unencrypted in etcd, and in the output of
kubectl get and describe for anyone who may read the workload.

Only a literal credential is reported. The credential word must end the
name, or be followed only by words that keep it a credential (SECRET_KEY,
SECRET_KEY_BASE, PASSWORD_HASH): PASSWORD_FILE, TOKEN_PATH, SECRET_NAME,
ACCESS_KEY_ID, TOKEN_TTL and PASSWORD_MIN_LENGTH name something else, and
a name that starts with a switch word (ALLOW_EMPTY_PASSWORD,
REQUIRE_PASSWORD, ENABLE_TOKEN) is a setting. Nor are these values: empty
ones; references ($(VAR), ${VAR}, $VAR) and template placeholders
({{ .Values.x }}, <password>); paths (/var/run/secrets/token, ./key.json,
file://...: GOOGLE_APPLICATION_CREDENTIALS, AWS_SHARED_CREDENTIALS_FILE);
switches (true, false, yes, no, on, off, 0, 1, enabled, disabled, none);
references into a secret store (arn:aws:secretsmanager:..., vault:...);
and, for a name ending in SECRET or CREDENTIALS, the name of an object
(WEBHOOK_SECRET=elastic-webhook-server-cert, ns/name), which the program
reads from the API.`,
		Remediation: "Move the value to a Secret and reference it with valueFrom.secretKeyRef (or envFrom), or mount it as a file.",
	},
	Check: checkSecretInEnv,
}

var (
	// credentialWords are the words of an env name (split at _) that name a
	// credential.
	credentialWords = map[string]bool{"PASSWORD": true, "PASSWD": true, "PWD": true, "SECRET": true,
		"TOKEN": true, "APIKEY": true, "ACCESSKEY": true, "PRIVATEKEY": true, "CREDENTIALS": true, "CREDENTIAL": true}
	// twoWordCredentials are credential words spelled as two words.
	twoWordCredentials = map[[2]string]string{{"API", "KEY"}: "APIKEY", {"ACCESS", "KEY"}: "ACCESSKEY", {"PRIVATE", "KEY"}: "PRIVATEKEY"}
	// credentialTail are the words that may follow a credential word and
	// keep the name a credential: SECRET_KEY, SECRET_KEY_BASE, TOKEN_VALUE.
	credentialTail = map[string]bool{"KEY": true, "BASE": true, "VALUE": true, "HASH": true, "HASHED": true, "DATA": true,
		"B64": true, "BASE64": true, "STRING": true, "RAW": true, "PLAIN": true, "PLAINTEXT": true, "ENCODED": true,
		"ACCESS": true, "APIKEY": true, "ACCESSKEY": true, "PRIVATEKEY": true}
	// switchWords start a name that is a setting, not a credential
	// (ALLOW_EMPTY_PASSWORD, REQUIRE_PASSWORD).
	switchWords = map[string]bool{"ALLOW": true, "ENABLE": true, "ENABLED": true, "DISABLE": true, "DISABLED": true,
		"REQUIRE": true, "REQUIRED": true, "SKIP": true, "USE": true, "NO": true, "IS": true, "HAS": true, "FORCE": true,
		"GENERATE": true, "AUTO": true, "RANDOM": true}
	// switchValues are values of a setting, not of a credential.
	switchValues = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "y": true, "n": true, "on": true,
		"off": true, "0": true, "1": true, "enable": true, "enabled": true, "disable": true, "disabled": true, "none": true,
		"null": true, "nil": true, "required": true, "optional": true, "auto": true, "empty": true}
	envReference   = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)|\$\{[^}]*\}|^\$[A-Za-z_][A-Za-z0-9_]*$`)
	placeholder    = regexp.MustCompile(`^<[^<>]*>$|\{\{.*\}\}`)
	pathValue      = regexp.MustCompile(`^(/|\./|\.\./|~/|file:|[A-Za-z]:\\)`)
	storeReference = regexp.MustCompile(`^(arn:aws:|vault:|ref\+|secretsmanager:|gcpsm:|azkv:|projects/[^/]+/secrets/)`)
	// objectName is a DNS-1123 subdomain with a '-' or '.' in it (a word
	// alone may be a password), optionally as namespace/name.
	objectName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.-][a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
)

// credentialName reports whether an env name says it holds a credential,
// and the credential word that ends it ("" when it does not): the last
// credential word must be followed only by credentialTail words, and the
// first word must not be a switch word.
func credentialName(name string) (bool, string) {
	words := strings.Split(strings.ToUpper(name), "_")
	if len(words) > 1 && switchWords[words[0]] {
		return false, ""
	}
	last, word := -1, ""
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			if w, ok := twoWordCredentials[[2]string{words[i], words[i+1]}]; ok {
				last, word = i+1, w
				i++
				continue
			}
		}
		if credentialWords[words[i]] {
			last, word = i, words[i]
		}
	}
	if last < 0 {
		return false, ""
	}
	for _, w := range words[last+1:] {
		if !credentialTail[w] {
			return false, ""
		}
	}
	if last == len(words)-1 {
		return true, word
	}
	return true, ""
}

// literalCredential reports whether value, given to an env entry named
// name, is a literal credential (see the rule's description).
func literalCredential(name, value string) bool {
	ok, ending := credentialName(name)
	v := strings.TrimSpace(value)
	if !ok || v == "" {
		return false
	}
	if switchValues[strings.ToLower(v)] || envReference.MatchString(v) || placeholder.MatchString(v) ||
		pathValue.MatchString(v) || storeReference.MatchString(v) {
		return false
	}
	if (ending == "SECRET" || ending == "CREDENTIALS" || ending == "CREDENTIAL") && objectName.MatchString(v) {
		return false
	}
	return true
}

// checkSecretInEnv reports each env entry that holds a literal credential
// (literalCredential).
func checkSecretInEnv(c *ObjectContext) []Finding {
	spec, specPath := podSpecOf(c.Object)
	if spec == nil || hasControllerOwner(c.Object) {
		return nil
	}
	kind := c.Object.GetObjectKind().GroupVersionKind().Kind
	var out []Finding
	for _, pc := range podContainers(spec, specPath) {
		for i, e := range pc.c.Env {
			if e.ValueFrom != nil || !literalCredential(e.Name, e.Value) {
				continue
			}
			out = append(out, Finding{Path: fmt.Sprintf("%s.env[%d].value", pc.path, i),
				Message: fmt.Sprintf("%s %q: env %s holds a literal value: the secret is in the manifest and readable by anyone who can read the %s",
					containerLabel[pc.field], pc.c.Name, e.Name, kind)})
		}
	}
	return out
}
