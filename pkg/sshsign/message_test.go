package sshsign_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/sshsign"
)

func TestMessage(t *testing.T) {
	tests := []struct {
		name        string
		timestamp   int64
		nonce       string
		content     []byte
		packName    string
		description string
		want        string
	}{
		{
			name:        "all fields",
			timestamp:   1767225600,
			nonce:       "abcdefghijklmnop",
			content:     []byte("hello"),
			packName:    "demo",
			description: "A demo pack",
			want: "pact-publish-v1\n1767225600\nabcdefghijklmnop\n" +
				"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\ndemo\nA demo pack\n",
		},
		{
			name:      "absent name and description are empty lines",
			timestamp: 1,
			nonce:     "0123456789abcdef",
			content:   []byte("hello"),
			want: "pact-publish-v1\n1\n0123456789abcdef\n" +
				"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\n\n\n",
		},
		{
			name:      "empty content hashes the empty string",
			timestamp: 1767225600,
			nonce:     "0123456789abcdef",
			content:   nil,
			packName:  "demo",
			want: "pact-publish-v1\n1767225600\n0123456789abcdef\n" +
				"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\ndemo\n\n",
		},
		{
			name:        "UTF-8 content and description are taken as bytes",
			timestamp:   1767225600,
			nonce:       "0123456789abcdef",
			content:     []byte("é"),
			packName:    "café",
			description: "naïve — ok",
			want: "pact-publish-v1\n1767225600\n0123456789abcdef\n" +
				"4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c\ncafé\nnaïve — ok\n",
		},
		{
			name:        "content line breaks do not reach the message",
			timestamp:   1767225600,
			nonce:       "0123456789abcdef",
			content:     []byte("line one\r\nline two\n"),
			packName:    "demo",
			description: "d",
			want: "pact-publish-v1\n1767225600\n0123456789abcdef\n" +
				"af28611c8dd7cdaa70b328947a47e7236543cff6aee512d92f80132b7f8db82f\ndemo\nd\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sshsign.Message(tt.timestamp, tt.nonce, tt.content, tt.packName, tt.description)
			if err != nil {
				t.Fatalf("Message: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Message =\n%q\nwant\n%q", got, tt.want)
			}
			if n := strings.Count(string(got), "\n"); n != 6 {
				t.Errorf("message has %d line breaks, want 6", n)
			}
		})
	}
}

func TestMessageRejectsLineBreaksInFields(t *testing.T) {
	tests := []struct {
		name        string
		nonce       string
		packName    string
		description string
		wantField   string
	}{
		{"newline in name", "0123456789abcdef", "de\nmo", "", "name"},
		{"carriage return in name", "0123456789abcdef", "demo\r", "", "name"},
		{"newline in description", "0123456789abcdef", "demo", "one\ntwo", "description"},
		{"carriage return in description", "0123456789abcdef", "demo", "one\rtwo", "description"},
		{"trailing newline in description", "0123456789abcdef", "demo", "one\n", "description"},
		{"newline in nonce", "0123456789\nabcdef", "demo", "", "nonce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := sshsign.Message(1767225600, tt.nonce, []byte("x"), tt.packName, tt.description)
			if !errors.Is(err, sshsign.ErrMultilineField) {
				t.Fatalf("Message = %q, %v; want ErrMultilineField", msg, err)
			}
			if !strings.HasPrefix(err.Error(), tt.wantField+" ") {
				t.Errorf("error %q does not name the field %q", err, tt.wantField)
			}
		})
	}
}

func TestValidNonce(t *testing.T) {
	tests := []struct {
		name  string
		nonce string
		want  bool
	}{
		{"16 characters", strings.Repeat("a", 16), true},
		{"128 characters", strings.Repeat("Z", 128), true},
		{"every allowed character class", "AZaz09._-AZaz09._-", true},
		{"15 characters", strings.Repeat("a", 15), false},
		{"129 characters", strings.Repeat("a", 129), false},
		{"empty", "", false},
		{"space", "abcdefgh ijklmnop", false},
		{"slash", "abcdefgh/ijklmnop", false},
		{"plus", "abcdefgh+ijklmnop", false},
		{"newline", "abcdefghijklmnop\n", false},
		{"non-ASCII letter", "abcdefghijklmnoé", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sshsign.ValidNonce(tt.nonce); got != tt.want {
				t.Errorf("ValidNonce(%q) = %v, want %v", tt.nonce, got, tt.want)
			}
		})
	}
}

func TestNewNonceIsValidAndFresh(t *testing.T) {
	seen := make(map[string]bool)
	for range 100 {
		nonce := sshsign.NewNonce()
		if len(nonce) != 32 || !sshsign.ValidNonce(nonce) {
			t.Fatalf("NewNonce() = %q: want 32 valid characters", nonce)
		}
		if seen[nonce] {
			t.Fatalf("NewNonce() repeated %q", nonce)
		}
		seen[nonce] = true
	}
}

func BenchmarkMessage(b *testing.B) {
	content := []byte(strings.Repeat("# A pack\n\nSome text of a typical pack document.\n", 60))
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := sshsign.Message(1767225600, "0123456789abcdef0123456789abcdef", content, "demo", "A demo pack"); err != nil {
			b.Fatal(err)
		}
	}
}
