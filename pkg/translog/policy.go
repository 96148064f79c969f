package translog

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"

	"github.com/pact-registry/pact/pkg/clip"
)

// Witness policies (docs/protocol.md, Witnesses): which witnesses must
// cosign a checkpoint before a client trusts it, in the C2SP tlog-policy
// form that filippo.io/torchwood parses:
//
//	log VKEY [URL]
//	witness NAME VKEY [URL]
//	group NAME N|all|any MEMBER...
//	quorum NAME
//
// torchwood decides what a policy means (ParsePolicy, VerifyCheckpoint);
// this file only keeps what torchwood's Policy does not expose: each
// witness's key and the URL pactd asks it for cosignatures at.

// MaxPolicySize bounds a policy file a server serves or a client reads.
const MaxPolicySize = 64 << 10

// maxPolicyWitnesses bounds the witnesses of a policy: a note holds at most
// 100 signatures (golang.org/x/mod/sumdb/note), the log's among them.
const maxPolicyWitnesses = 64

// maxCosignatureLines bounds the signature lines read from one witness's
// answer: C2SP tlog-witness allows one per key the witness holds.
const maxCosignatureLines = 16

// A Policy is a parsed witness policy.
type Policy struct {
	text   []byte
	policy torchwood.Policy
	// Logs are the verifier keys of its log lines.
	Logs []string
	// Witnesses are its witnesses, in the order of the file.
	Witnesses []PolicyWitness
	// Quorum names the component that must be satisfied ("none": only
	// the log's signature).
	Quorum string
}

// A PolicyWitness is one witness line of a policy.
type PolicyWitness struct {
	Name string // the name the policy gives it
	Key  string // its cosignature verifier key (name+hash+base64key)
	// URL is its submission prefix (C2SP tlog-witness: checkpoints go to
	// URL/add-checkpoint), "" when the policy gives none.
	URL      string
	verifier *torchwood.CosignatureVerifier
}

// ParsePolicy reads a policy; torchwood.ParsePolicy decides whether it is
// one. A witness URL must be an absolute http or https URL.
func ParsePolicy(text []byte) (*Policy, error) {
	if len(text) > MaxPolicySize {
		return nil, fmt.Errorf("policy: %d bytes, more than %d", len(text), MaxPolicySize)
	}
	tp, err := torchwood.ParsePolicy(text)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p := &Policy{text: bytes.Clone(text), policy: tp}
	for i, line := range strings.Split(string(text), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "quorum":
			p.Quorum = fields[1]
		case "log":
			if len(fields) > 3 {
				return nil, fmt.Errorf("policy: line %d: a log line is log VKEY [URL]", i+1)
			}
			p.Logs = append(p.Logs, fields[1])
		case "witness":
			if len(fields) > 4 {
				return nil, fmt.Errorf("policy: line %d: a witness line is witness NAME VKEY [URL]", i+1)
			}
			w := PolicyWitness{Name: fields[1], Key: fields[2]}
			if w.verifier, err = torchwood.NewCosignatureVerifier(w.Key); err != nil {
				return nil, fmt.Errorf("policy: line %d: %w", i+1, err)
			}
			if len(fields) == 4 {
				u, err := url.Parse(fields[3])
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
					u.RawQuery != "" || u.Fragment != "" {
					return nil, fmt.Errorf("policy: line %d: the witness URL %q is not an absolute http(s) URL", i+1, clip.Text(fields[3], 80))
				}
				w.URL = strings.TrimRight(fields[3], "/")
			}
			for _, o := range p.Witnesses {
				if o.Key == w.Key {
					return nil, fmt.Errorf("policy: line %d: the witness key of %s is also %s's", i+1, w.Name, o.Name)
				}
			}
			p.Witnesses = append(p.Witnesses, w)
		}
	}
	if len(p.Witnesses) > maxPolicyWitnesses {
		return nil, fmt.Errorf("policy: %d witnesses, more than %d", len(p.Witnesses), maxPolicyWitnesses)
	}
	return p, nil
}

// Text is the policy as it was read.
func (p *Policy) Text() []byte { return p.text }

// NamesLog says whether the policy has a log line with the verifier key
// vkey.
func (p *Policy) NamesLog(vkey string) bool {
	for _, k := range p.Logs {
		if k == vkey {
			return true
		}
	}
	return false
}

// Witness answers the policy's witness of the verifier key, or nil.
func (p *Policy) Witness(key string) *PolicyWitness {
	for i := range p.Witnesses {
		if p.Witnesses[i].Key == key {
			return &p.Witnesses[i]
		}
	}
	return nil
}

// Witnessed is a checkpoint a policy accepts.
type Witnessed struct {
	Checkpoint
	// Cosigned are the names (in the policy) of the witnesses whose
	// cosignature verified, and when each cosigned.
	Cosigned map[string]time.Time
	// QuorumTime is the newest time at which cosignatures that meet the
	// quorum vouch for the checkpoint: the oldest of the newest
	// cosignatures that together meet it. Zero when the quorum needs no
	// cosignature.
	QuorumTime time.Time
}

// Verify checks a signed checkpoint against the policy with
// torchwood.VerifyCheckpoint: the log's signature and cosignatures that
// meet the quorum.
func (p *Policy) Verify(signed []byte) (*Witnessed, error) {
	if len(signed) > MaxCheckpointSize {
		return nil, fmt.Errorf("checkpoint: %d bytes, more than %d", len(signed), MaxCheckpointSize)
	}
	_, n, err := torchwood.VerifyCheckpoint(signed, p.policy)
	if err != nil {
		if n, oerr := note.Open(signed, p.policy); oerr == nil {
			// Signed well, but not by enough witnesses: say by whom.
			var names []string
			for _, sig := range n.Sigs {
				if pw := p.witnessOf(sig); pw != nil {
					names = append(names, pw.Name)
				}
			}
			by := "no witness of the policy"
			if len(names) > 0 {
				by = "only " + strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("it is cosigned by %s, short of the policy's quorum %q", by, p.Quorum)
		}
		return nil, err
	}
	c, err := ParseCheckpointText(n.Text)
	if err != nil {
		return nil, err
	}
	type cosig struct {
		sig note.Signature
		at  int64
	}
	var own []note.Signature
	var cosigs []cosig
	w := &Witnessed{Checkpoint: c, Cosigned: map[string]time.Time{}}
	for _, sig := range n.Sigs {
		pw := p.witnessOf(sig)
		if pw == nil {
			own = append(own, sig)
			continue
		}
		at, err := torchwood.CosignatureTimestamp(sig)
		if err != nil {
			return nil, fmt.Errorf("the cosignature of %s: %w", pw.Name, err)
		}
		cosigs = append(cosigs, cosig{sig, at})
		w.Cosigned[pw.Name] = time.Unix(at, 0).UTC()
	}
	if p.policy.Check(c.Origin, own) == nil {
		return w, nil // a quorum of none
	}
	sort.Slice(cosigs, func(i, j int) bool { return cosigs[i].at > cosigs[j].at })
	sigs := own
	for _, cs := range cosigs {
		sigs = append(sigs, cs.sig)
		if p.policy.Check(c.Origin, sigs) == nil {
			w.QuorumTime = time.Unix(cs.at, 0).UTC()
			return w, nil
		}
	}
	return nil, errors.New("checkpoint: the cosignatures meet the policy but no newest subset of them does")
}

func (p *Policy) witnessOf(sig note.Signature) *PolicyWitness {
	for i := range p.Witnesses {
		v := p.Witnesses[i].verifier
		if v.Name() == sig.Name && v.KeyHash() == sig.Hash {
			return &p.Witnesses[i]
		}
	}
	return nil
}

// Cosignature reads a witness's answer to add-checkpoint (C2SP
// tlog-witness: note signature lines) for the signed checkpoint, and
// answers the first line that is w's cosignature of it, and when w signed.
// Lines of other keys are ignored; a line of w's key that does not verify
// is an error.
func (w *PolicyWitness) Cosignature(signed, answer []byte) (line []byte, at time.Time, err error) {
	if len(answer) == 0 || answer[len(answer)-1] != '\n' {
		return nil, time.Time{}, errors.New("the answer is not signature lines")
	}
	lines := bytes.SplitAfter(answer, []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) > maxCosignatureLines {
		return nil, time.Time{}, fmt.Errorf("the answer holds %d lines, more than %d", len(lines), maxCosignatureLines)
	}
	for _, l := range lines {
		if !bytes.HasPrefix(l, []byte("— ")) {
			return nil, time.Time{}, fmt.Errorf("the answer holds %q, not a signature line", clip.Text(string(bytes.TrimSpace(l)), 60))
		}
		n, err := note.Open(append(bytes.Clone(signed), l...), note.VerifierList(w.verifier))
		var unknown *note.UnverifiedNoteError
		if errors.As(err, &unknown) {
			continue // another key's
		}
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("its cosignature does not verify: %w", err)
		}
		for _, sig := range n.Sigs {
			if sig.Name == w.verifier.Name() && sig.Hash == w.verifier.KeyHash() {
				ts, err := torchwood.CosignatureTimestamp(sig)
				if err != nil {
					return nil, time.Time{}, err
				}
				return l, time.Unix(ts, 0).UTC(), nil
			}
		}
	}
	return nil, time.Time{}, fmt.Errorf("the answer holds no cosignature by the key %s", w.Key)
}
