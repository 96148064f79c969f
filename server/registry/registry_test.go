package registry

import (
	"regexp"
	"strings"
	"testing"
)

func TestNormalizeUsername(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"alice", "alice", true},
		{"Alice", "alice", true},
		{"  bob-2 ", "bob-2", true},
		{"a", "a", true},
		{strings.Repeat("a", 39), strings.Repeat("a", 39), true},
		{strings.Repeat("a", 40), "", false},
		{"", "", false},
		{"-alice", "", false},
		{"alice-", "", false},
		{"al_ice", "", false},
		{"al.ice", "", false},
		{"аlice", "", false}, // Cyrillic а: a look-alike, not ASCII
		{"api", "", false},
		{"Dashboard", "", false},
		{"static", "", false},
		{"healthz", "", false},
	}
	for _, tc := range cases {
		got, err := NormalizeUsername(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("NormalizeUsername(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if !tc.ok && (err == nil || ErrorCode(err) != Invalid) {
			t.Errorf("NormalizeUsername(%q) = %q, %v; want an invalid error", tc.in, got, err)
		}
	}
}

func TestPasswordHashing(t *testing.T) {
	hash, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$") || strings.Contains(hash, "correct horse") {
		t.Errorf("hash = %q, want an argon2id encoding without the password", hash)
	}
	again, _ := HashPassword("correct horse")
	if again == hash {
		t.Errorf("two hashes of one password are equal: the salt is not random")
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct horsE": false, "": false} {
		if got := CheckPassword(hash, pw); got != want {
			t.Errorf("CheckPassword(%q) = %v, want %v", pw, got, want)
		}
	}
	for _, bad := range []string{"", "$argon2id$", "$bcrypt$x$y$z$w", strings.Replace(hash, "v=19", "v=18", 1)} {
		if CheckPassword(bad, "correct horse") {
			t.Errorf("CheckPassword accepted the malformed hash %q", bad)
		}
	}
}

func TestNewSecret(t *testing.T) {
	token := regexp.MustCompile(`^pact_[0-9A-Za-z]{43}$`)
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s := NewSecret(TokenPrefix, tokenRandomLength)
		if !token.MatchString(s) {
			t.Fatalf("token %q does not match %s", s, token)
		}
		if seen[s] {
			t.Fatalf("token %q made twice", s)
		}
		seen[s] = true
	}
}

func TestCursor(t *testing.T) {
	for _, n := range []int64{1, 42, 1 << 40} {
		got, err := decodeCursor(encodeCursor(n))
		if err != nil || got != n {
			t.Errorf("decodeCursor(encodeCursor(%d)) = %d, %v", n, got, err)
		}
	}
	if got, err := decodeCursor(""); got != 0 || err != nil {
		t.Errorf(`decodeCursor("") = %d, %v; want the first page`, got, err)
	}
	for _, bad := range []string{"x", "djE6", "djE6MA", "djE6LTU", "djI6NQ", "!!!!"} {
		if _, err := decodeCursor(bad); ErrorCode(err) != Invalid {
			t.Errorf("decodeCursor(%q) = %v, want an invalid error", bad, err)
		}
	}
}

func TestErrorsHideInternalText(t *testing.T) {
	internal := &struct{ error }{error: errString("pq: relation \"versions\" does not exist")}
	if ErrorCode(internal) != Internal || ErrorMessage(internal) != "internal error" {
		t.Errorf("an internal error leaks: code %q message %q", ErrorCode(internal), ErrorMessage(internal))
	}
	e := VersionConflict("alice", "foo", "1.2.0")
	if ErrorCode(e) != Conflict || e.Error() != "version 1.2.0 of alice/foo already exists with different content" {
		t.Errorf("VersionConflict = %q (%s)", e, e.Code)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
