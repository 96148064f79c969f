package registry_test

import (
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func TestCheckIssuerURL(t *testing.T) {
	tests := []struct {
		issuer string
		ok     bool
	}{
		{"https://token.actions.githubusercontent.com", true},
		{"https://gitlab.com", true},
		{"http://127.0.0.1:8080", true},
		{"http://[::1]:8080", true},
		{"http://localhost:9000", true},
		{"http://gitlab.example.com", false},
		{"http://10.0.0.1", false},
		{"gitlab.com", false},
		{"https://", false},
		{"https://gitlab.com/?x=1", false},
		{"https://user@gitlab.com", false},
		{"ftp://gitlab.com", false},
	}
	for _, tt := range tests {
		if err := registry.CheckIssuerURL(tt.issuer); (err == nil) != tt.ok {
			t.Errorf("CheckIssuerURL(%q) = %v, want ok %v", tt.issuer, err, tt.ok)
		}
	}
}
