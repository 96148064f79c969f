package translog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// policyFixture is a log key and three witnesses with real keys.
type policyFixture struct {
	signer    note.Signer
	vkey      string
	witnesses map[string]*torchwood.CosignatureSigner
	keys      map[string]ed25519.PrivateKey // the witnesses', to cosign at a chosen time
}

func newPolicyFixture(t *testing.T) *policyFixture {
	t.Helper()
	skey, vkey, err := GenerateKey(rand.Reader, "pact.example/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	f := &policyFixture{signer: signer, vkey: vkey, witnesses: map[string]*torchwood.CosignatureSigner{}, keys: map[string]ed25519.PrivateKey{}}
	for _, name := range []string{"w1", "w2", "w3"} {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if f.witnesses[name], err = torchwood.NewCosignatureSigner(name+".example", priv); err != nil {
			t.Fatal(err)
		}
		f.keys[name] = priv
	}
	return f
}

func (f *policyFixture) key(name string) string { return f.witnesses[name].Verifier().String() }

// policy is a policy of the log and w1..w3 ending in the given lines.
func (f *policyFixture) policy(t *testing.T, tail string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte("log " + f.vkey + "\nwitness w1 " + f.key("w1") + " https://w1.example/\n" +
		"witness w2 " + f.key("w2") + " http://127.0.0.1:7380\nwitness w3 " + f.key("w3") + "\n" + tail))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkpoint signs a checkpoint of size 5 with the log's key.
func (f *policyFixture) checkpoint(t *testing.T) []byte {
	t.Helper()
	signed, err := SignCheckpoint(Checkpoint{Origin: "pact.example/log", Size: 5, Hash: tlog.Hash{1}}, f.signer)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// cosign answers name's cosignature line of signed, as a witness answers.
func (f *policyFixture) cosign(t *testing.T, signed []byte, name string) []byte {
	t.Helper()
	text, _, _ := strings.Cut(string(signed), "\n\n")
	out, err := note.Sign(&note.Note{Text: text + "\n"}, f.witnesses[name])
	if err != nil {
		t.Fatal(err)
	}
	_, sigs, _ := strings.Cut(string(out), "\n\n")
	return []byte(sigs)
}

// cosignAt answers name's cosignature line of signed made at a chosen
// time, as C2SP tlog-cosignature defines it: the key hash, the time and
// the Ed25519 signature of "cosignature/v1", the time and the checkpoint.
func (f *policyFixture) cosignAt(t *testing.T, signed []byte, name string, at time.Time) []byte {
	t.Helper()
	text, _, _ := strings.Cut(string(signed), "\n\n")
	msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s\n", at.Unix(), text)
	sig := binary.BigEndian.AppendUint32(nil, f.witnesses[name].KeyHash())
	sig = binary.BigEndian.AppendUint64(sig, uint64(at.Unix()))
	sig = append(sig, ed25519.Sign(f.keys[name], []byte(msg))...)
	return []byte("— " + name + ".example " + base64.StdEncoding.EncodeToString(sig) + "\n")
}

func TestParsePolicy(t *testing.T) {
	f := newPolicyFixture(t)
	p := f.policy(t, "group two 2 w1 w2 w3\nquorum two\n")
	if !p.NamesLog(f.vkey) || p.NamesLog("other.example/log+01234567+AAAA") {
		t.Errorf("NamesLog: the policy's log line is %v", p.Logs)
	}
	if len(p.Witnesses) != 3 || p.Quorum != "two" {
		t.Fatalf("witnesses %+v, quorum %q", p.Witnesses, p.Quorum)
	}
	for i, want := range []struct{ name, url string }{{"w1", "https://w1.example"}, {"w2", "http://127.0.0.1:7380"}, {"w3", ""}} {
		if w := p.Witnesses[i]; w.Name != want.name || w.URL != want.url || w.Key != f.key(want.name) {
			t.Errorf("witness %d = %s %s %s, want %s %s", i, w.Name, w.URL, w.Key, want.name, want.url)
		}
	}
	if p.Witness(f.key("w2")).Name != "w2" || p.Witness(f.vkey) != nil {
		t.Error("Witness does not find the witnesses by key")
	}

	for _, tc := range []struct {
		name, text, want string
	}{
		{"no quorum", "log " + f.vkey + "\n", "no quorum defined"},
		{"unknown keyword", "log " + f.vkey + "\nwitnes w1 " + f.key("w1") + "\nquorum none\n", `unknown keyword: "witnes"`},
		{"not a cosignature key", "log " + f.vkey + "\nwitness w1 " + f.vkey + "\nquorum w1\n", "invalid witness vkey"},
		{"an ftp URL", "log " + f.vkey + "\nwitness w1 " + f.key("w1") + " ftp://w1.example\nquorum w1\n", "is not an absolute http(s) URL"},
		{"a relative URL", "log " + f.vkey + "\nwitness w1 " + f.key("w1") + " /w1\nquorum w1\n", "is not an absolute http(s) URL"},
		{"a URL with a query", "log " + f.vkey + "\nwitness w1 " + f.key("w1") + " https://w1.example/?x=1\nquorum w1\n", "is not an absolute http(s) URL"},
		{"extra fields", "log " + f.vkey + "\nwitness w1 " + f.key("w1") + " https://w1.example more\nquorum w1\n", "a witness line is witness NAME VKEY [URL]"},
		{"one key twice", "log " + f.vkey + "\nwitness w1 " + f.key("w1") + "\nwitness again " + f.key("w1") + "\nquorum w1\n", "is also w1's"},
		{"too large", "# " + strings.Repeat("x", MaxPolicySize) + "\nquorum none\n", "more than 65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParsePolicy([]byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParsePolicy: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestPolicyVerify(t *testing.T) {
	f := newPolicyFixture(t)
	signed := f.checkpoint(t)
	cosigned := func(names ...string) []byte {
		out := append([]byte(nil), signed...)
		for _, n := range names {
			out = append(out, f.cosign(t, signed, n)...)
		}
		return out
	}
	before := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		name   string
		tail   string
		note   []byte
		want   string // "" when accepted
		quorum bool   // a quorum time is set
	}{
		{"two of three, by w1 and w2", "group two 2 w1 w2 w3\nquorum two\n", cosigned("w1", "w2"), "", true},
		{"two of three, by w3 and w1", "group two 2 w1 w2 w3\nquorum two\n", cosigned("w3", "w1"), "", true},
		{"two of three, by w2 alone", "group two 2 w1 w2 w3\nquorum two\n", cosigned("w2"), `cosigned by only w2, short of the policy's quorum "two"`, false},
		{"all, by none", "group all3 all w1 w2 w3\nquorum all3\n", signed, `cosigned by no witness of the policy, short of the policy's quorum "all3"`, false},
		{"any, by w3", "group one any w1 w2 w3\nquorum one\n", cosigned("w3"), "", true},
		{"a witness alone", "quorum w2\n", cosigned("w1", "w2"), "", true},
		{"none", "quorum none\n", signed, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := f.policy(t, tc.tail).Verify(tc.note)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Verify: %v, want an error saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if w.Size != 5 || w.Origin != "pact.example/log" {
				t.Errorf("checkpoint %+v", w.Checkpoint)
			}
			if tc.quorum != !w.QuorumTime.IsZero() || (tc.quorum && w.QuorumTime.Before(before.Truncate(time.Second))) {
				t.Errorf("quorum time %v", w.QuorumTime)
			}
		})
	}

	// A cosignature that does not verify spoils the note, as note.Open has
	// it; one by a key the policy does not know is ignored.
	p := f.policy(t, "group two 2 w1 w2 w3\nquorum two\n")
	other := newPolicyFixture(t)
	forged := append(cosigned("w1"), []byte(strings.Replace(string(f.cosign(t, signed, "w2")), "w2.example ", "w2.example A", 1))...)
	if _, err := p.Verify(forged); err == nil {
		t.Error("a forged cosignature is accepted")
	}
	if _, err := p.Verify(append(cosigned("w1", "w2"), other.cosign(t, signed, "w3")...)); err != nil {
		t.Errorf("an unknown witness's cosignature spoils the note: %v", err)
	}
	// The log's key must have signed: cosignatures of another log's
	// checkpoint do not make it.
	theirs := other.checkpoint(t)
	if _, err := p.Verify(append(append([]byte(nil), theirs...), f.cosign(t, theirs, "w1")...)); err == nil {
		t.Error("a checkpoint of another key is accepted")
	}
}

// The time of a quorum is when the newest cosignatures that meet it were
// all made: the oldest of them, however fresh the others are; cosignatures
// older than a quorum of newer ones do not make it older.
func TestPolicyQuorumTimeIsTheOldestOfTheNewestQuorum(t *testing.T) {
	f := newPolicyFixture(t)
	signed := f.checkpoint(t)
	now := time.Now().UTC().Truncate(time.Second)
	fresh, hour, day := now.Add(-10*time.Second), now.Add(-time.Hour), now.Add(-24*time.Hour)
	// The note holds the oldest first, so that an order kept as written
	// is not the order of their times.
	note := func(cosigs ...[]byte) []byte {
		out := append([]byte(nil), signed...)
		for _, c := range cosigs {
			out = append(out, c...)
		}
		return out
	}
	for _, tc := range []struct {
		name, tail string
		note       []byte
		want       time.Time
	}{
		{"both of two, one an hour old", "group both all w1 w2\nquorum both\n",
			note(f.cosignAt(t, signed, "w2", hour), f.cosignAt(t, signed, "w1", fresh)), hour},
		{"two of three, the newest two", "group two 2 w1 w2 w3\nquorum two\n",
			note(f.cosignAt(t, signed, "w3", day), f.cosignAt(t, signed, "w2", hour), f.cosignAt(t, signed, "w1", fresh)), hour},
		{"one of three, the newest", "group one any w1 w2 w3\nquorum one\n",
			note(f.cosignAt(t, signed, "w3", day), f.cosignAt(t, signed, "w2", hour), f.cosignAt(t, signed, "w1", fresh)), fresh},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := f.policy(t, tc.tail).Verify(tc.note)
			if err != nil {
				t.Fatal(err)
			}
			if !w.QuorumTime.Equal(tc.want) {
				t.Errorf("quorum time %v, want %v (cosigned %v)", w.QuorumTime, tc.want, w.Cosigned)
			}
		})
	}
}

// Cosignature picks the witness's own line of an add-checkpoint answer,
// ignores other keys' and refuses anything else.
func TestPolicyWitnessCosignature(t *testing.T) {
	f := newPolicyFixture(t)
	p := f.policy(t, "quorum w1\n")
	w1 := p.Witness(f.key("w1"))
	signed := f.checkpoint(t)
	own := f.cosign(t, signed, "w1")
	line, at, err := w1.Cosignature(signed, append(f.cosign(t, signed, "w2"), own...))
	if err != nil || string(line) != string(own) || time.Since(at) > time.Minute {
		t.Fatalf("Cosignature = %q at %v, %v; want %q", line, at, err, own)
	}
	for _, tc := range []struct{ name, answer, want string }{
		{"empty", "", "not signature lines"},
		{"no newline", strings.TrimSuffix(string(own), "\n"), "not signature lines"},
		{"another key's only", string(f.cosign(t, signed, "w3")), "holds no cosignature by the key"},
		{"not a signature line", "ok\n", `holds "ok", not a signature line`},
		{"forged", strings.Replace(string(own), "w1.example ", "w1.example A", 1), "does not verify"},
		{"too many lines", strings.Repeat(string(f.cosign(t, signed, "w2")), 17), "more than 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := w1.Cosignature(signed, []byte(tc.answer)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Cosignature: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
