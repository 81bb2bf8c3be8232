package rules

import "testing"

// TestLiteralCredential is the table of what hygiene/secret-in-env calls a
// literal credential: the shapes real charts write (bitnami, ECK, vault,
// cloud SDKs) on both sides.
func TestLiteralCredential(t *testing.T) {
	tests := []struct {
		name, value string
		want        bool
	}{
		// Literal credentials.
		{"DB_PASSWORD", "hunter2", true},
		{"POSTGRES_PASSWORD", "changeme", true},
		{"MYSQL_ROOT_PASSWORD", "123456", true},
		{"REDIS_PASSWD", "s3cr3t", true},
		{"API_KEY", "AIzaSyA-1234567890abcdef", true},
		{"APIKEY", "0123456789abcdef", true},
		{"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
		{"SECRET_KEY", "django-insecure-abc123", true},
		{"SECRET_KEY_BASE", "a1b2c3", true},
		{"GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"VAULT_TOKEN", "root", true},
		{"CLIENT_SECRET", "Zm9vYmFy", true},
		{"JWT_SECRET", "supersecret", true},
		{"ADMIN_PASSWORD_HASH", "$2a$10$abcdefghijklmnopqrstuv", true},
		{"PRIVATE_KEY", "-----BEGIN RSA PRIVATE KEY-----", true},
		{"MINIO_ACCESS_KEY", "minio", true},
		{"db_password", "hunter2", true},
		// Paths to a credential, not the credential.
		{"POSTGRES_PASSWORD_FILE", "/opt/bitnami/postgresql/secrets/password", false},
		{"REDIS_TOKEN_FILE", "/run/secrets/token", false},
		{"AWS_SHARED_CREDENTIALS_FILE", "/credentials/cloud", false},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json", false},
		{"GOOGLE_APPLICATION_CREDENTIALS", "key.json", false},
		{"CREDENTIALS", "./creds.json", false},
		{"TOKEN", "file:///var/run/token", false},
		{"PWD", "/app", false},
		{"SECRETS_DIR", "/etc/secrets", false},
		{"TOKEN_PATH", "var/run/token", false},
		// Switches and settings.
		{"ALLOW_EMPTY_PASSWORD", "yes", false},
		{"ALLOW_EMPTY_PASSWORD", "no", false},
		{"REQUIRE_PASSWORD", "true", false},
		{"REDIS_PASSWORD", "false", false},
		{"TOKEN", "0", false},
		{"MONGODB_PASSWORD", "enabled", false},
		{"PASSWORD_MIN_LENGTH", "12", false},
		{"TOKEN_TTL", "3600", false},
		{"TOKEN_AUDIENCE", "vault", false},
		{"PASSWORD_RESET_URL", "https://example.com/reset", false},
		{"ENABLE_TOKEN_AUTH", "1", false},
		// Names of objects.
		{"WEBHOOK_SECRET", "elastic-webhook-server-cert", false},
		{"TLS_SECRET", "kube-system/ingress-tls", false},
		{"CLOUD_CREDENTIALS", "velero-credentials", false},
		{"ADMIN_SECRET_NAME", "vault-admin", false},
		{"PASSWORD_SECRET_REF", "db", false},
		{"AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", false},
		// Empty values, references and placeholders.
		{"DB_PASSWORD", "", false},
		{"DB_PASSWORD", "  ", false},
		{"DB_PASSWORD", "$(POSTGRES_PASSWORD)", false},
		{"DB_PASSWORD", "${POSTGRES_PASSWORD}", false},
		{"DB_PASSWORD", "$POSTGRES_PASSWORD", false},
		{"DATABASE_TOKEN", "prefix-$(SUFFIX)", false},
		{"DB_PASSWORD", "<your-password>", false},
		{"DB_PASSWORD", "{{ .Values.password }}", false},
		{"DB_PASSWORD", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db", false},
		{"DB_PASSWORD", "vault:secret/data/db#password", false},
		// Not credential names at all.
		{"TOKENIZER", "fast", false},
		{"PASSENGER_COUNT", "4", false},
		{"KEY", "value", false},
		{"LOG_LEVEL", "info", false},
	}
	for _, tt := range tests {
		if got := literalCredential(tt.name, tt.value); got != tt.want {
			t.Errorf("literalCredential(%s=%q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}
