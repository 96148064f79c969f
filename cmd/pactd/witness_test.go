package main_test

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
)

// A witness policy pactd cannot use stops serve before it listens, naming
// the file and what is wrong with it: pactd never serves a log whose
// checkpoints no policy checks, while its operator thinks they are
// witnessed. A --witness-refresh under a second is a bad setting (exit 2).
func TestServeRefusesWitnessPolicies(t *testing.T) {
	signer, vkey, err := translog.GenerateKey(rand.Reader, "pact.example.com/log")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := writeFile(t, "log.key", signer+"\n")
	witness := "witness w1 w3.witness.example+c5d377f0+BPB9stxSroGkR2RnTJhNgDSImguoIzUvYLK5UK1Tpfo2 http://127.0.0.1:7380\n"
	_, other, err := translog.GenerateKey(rand.Reader, "other.example/log")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		policy string // "" for a file that does not exist
		args   []string
		code   int
		want   string
	}{
		{name: "no such file", code: 1, want: "--witness-policy: open "},
		{name: "not a policy", policy: "log " + vkey + "\n" + witness + "quorum w2\n", code: 1,
			want: `policy: quorum "w2" not defined in policy`},
		{name: "a witness URL that is not http(s)", policy: "log " + vkey + "\n" + strings.Replace(witness, "http://", "ftp://", 1) + "quorum w1\n", code: 1,
			want: `line 2: the witness URL "ftp://127.0.0.1:7380" is not an absolute http(s) URL`},
		{name: "another log's key", policy: "log " + other + "\n" + witness + "quorum w1\n", code: 1,
			want: `the witness policy has no line "log ` + vkey + `" naming this log's key`},
		{name: "a refresh under a second", policy: "log " + vkey + "\n" + witness + "quorum w1\n", args: []string{"--witness-refresh", "500ms"}, code: 2,
			want: `flag --witness-refresh: "500ms" is not a duration of at least 1s, such as 1h`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := t.TempDir() + "/missing.txt"
			if tc.policy != "" {
				path = writeFile(t, "policy.txt", tc.policy)
			}
			args := append([]string{"--log-key-file", keyFile, "--witness-policy", path}, tc.args...)
			r, _ := refusedServe(t, nil, args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("pactd serve: exit %d, stderr %q; want exit %d saying %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}
