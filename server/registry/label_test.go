package registry_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// hostileRunes are characters no label may hold: C0 and C1 controls, DEL,
// and the bidirectional embeddings, overrides and isolates.
var hostileRunes = []rune{
	0x00, 0x07, 0x08, '\t', '\n', '\r', 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
}

// labelDoc is a pack document whose yaml block sets the given keys.
func labelDoc(yamlLines ...string) []byte {
	return []byte("# A pack\n\n```yaml pact:pack\n" + strings.Join(yamlLines, "\n") + "\n```\n")
}

// yamlQuote writes s as a double-quoted YAML string, so any character can
// be put in a yaml block.
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || (0x7f <= r && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestLabelsRefuseControlAndBidiCharacters(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	owner, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	_, pubPath := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	keyLine := strings.Fields(sshtest.PublicKeyLine(t, pubPath))
	bareKey := keyLine[0] + " " + keyLine[1]

	type route struct {
		field string // the field the error must name
		store func(label string) error
	}
	publish := func(req registry.PublishRequest) error {
		_, _, err := svc.Publish(ctx, owner, req)
		return err
	}
	routes := map[string]route{
		"name given with the publish": {"name", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("name: plain", "version: 1"), Name: "x" + l + "y"})
		}},
		"description given with the publish": {"description", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("name: plain", "version: 1"), Description: "x" + l + "y"})
		}},
		"name in the yaml block": {"name", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("name: "+yamlQuote("x"+l+"y"), "version: 1")})
		}},
		"description in the yaml block": {"description", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("name: plain", "version: 1", "description: "+yamlQuote("x"+l+"y"))})
		}},
		"metadata.name in the yaml block": {"name", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("metadata: {name: " + yamlQuote("x"+l+"y") + ", version: 1}")})
		}},
		"scheme in the yaml block": {"scheme", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("name: plain", "version: 1", "scheme: "+yamlQuote("x"+l+"y"))})
		}},
		"name from the uploaded file's name": {"name", func(l string) error {
			return publish(registry.PublishRequest{Content: labelDoc("version: 1"), FileName: "x" + l + "y.pact.md"})
		}},
		"SSH key name": {"name", func(l string) error {
			_, err := svc.AddSSHKey(ctx, owner.ID, bareKey, "x"+l+"y")
			return err
		}},
		"SSH key comment": {"name (the key's comment)", func(l string) error {
			_, err := svc.AddSSHKey(ctx, owner.ID, bareKey+" x"+l+"y", "")
			return err
		}},
		"token name": {"token name", func(l string) error {
			_, _, err := svc.CreateToken(ctx, owner.ID, "x"+l+"y", nil)
			return err
		}},
		"email": {"email", func(l string) error {
			_, err := svc.CreateAccount(ctx, "x"+l+"y@example.com", "mallory", "correct horse")
			return err
		}},
	}
	for name, rt := range routes {
		for _, r := range hostileRunes {
			if r == '\r' && (strings.Contains(name, "yaml block") || name == "SSH key comment") {
				// YAML turns a quoted \r into a line break of its own, and
				// a key line with \r is refused as several lines.
				continue
			}
			if r == '\n' && (strings.Contains(name, "description") || name == "SSH key comment") {
				continue // descriptions may span lines; a key is one line
			}
			t.Run(fmt.Sprintf("%s/U+%04X", name, r), func(t *testing.T) {
				err := rt.store(string(r))
				if registry.ErrorCode(err) != registry.Invalid {
					t.Fatalf("error %v (code %q), want invalid", err, registry.ErrorCode(err))
				}
				msg := registry.ErrorMessage(err)
				if want := fmt.Sprintf("%s must not contain", rt.field); !strings.HasPrefix(msg, want) {
					t.Errorf("message %q does not start with %q", msg, want)
				}
				if want := fmt.Sprintf("found U+%04X at character 2", r); !strings.Contains(msg, want) {
					t.Errorf("message %q does not say %q", msg, want)
				}
				if strings.ContainsRune(msg, r) {
					t.Errorf("message %q repeats the character raw", msg)
				}
			})
		}
	}

	t.Run("nothing was stored", func(t *testing.T) {
		pkgs, err := store.ListPackages(ctx, registry.PackageFilter{Limit: 10})
		if err != nil || len(pkgs) != 0 {
			t.Errorf("packages %+v, %v; want none", pkgs, err)
		}
		keys, err := store.ListSSHKeys(ctx, owner.ID)
		if err != nil || len(keys) != 0 {
			t.Errorf("keys %+v, %v; want none", keys, err)
		}
		tokens, err := store.ListTokens(ctx, owner.ID, registry.TokenFilter{})
		if err != nil || len(tokens) != 0 {
			t.Errorf("tokens %+v, %v; want none", tokens, err)
		}
		if _, err := store.AccountByUsername(ctx, "mallory"); registry.ErrorCode(err) != registry.NotFound {
			t.Errorf("the account with a hostile email exists: %v", err)
		}
	})

	// A version is refused by the document rules, which allow ASCII
	// letters, digits and . _ + - only; the message quotes it escaped.
	t.Run("version", func(t *testing.T) {
		for _, r := range hostileRunes {
			_, _, err := svc.Publish(ctx, owner, registry.PublishRequest{Content: labelDoc("name: plain", "version: "+yamlQuote("1"+string(r)+"0"))})
			msg := registry.ErrorMessage(err)
			if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(msg, "version") || strings.ContainsRune(msg, r) {
				t.Errorf("version with %U: %v", r, err)
			}
		}
	})

	t.Run("invalid UTF-8", func(t *testing.T) {
		_, _, err := svc.CreateToken(ctx, owner.ID, "x\xffy", nil)
		if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(registry.ErrorMessage(err), "token name must be valid UTF-8") {
			t.Errorf("CreateToken with invalid UTF-8: %v", err)
		}
	})

	// Printable text of any script stays welcome, and a description may
	// span lines, as a yaml block scalar makes it.
	t.Run("accepted", func(t *testing.T) {
		label := "Grüße, 世界 — עברית ✓ 🙂"
		pkg, _, err := svc.Publish(ctx, owner, registry.PublishRequest{
			Content: labelDoc("name: "+yamlQuote(label), "version: 1", "scheme: "+yamlQuote(label), "description: |", "  first line", "  second line"),
		})
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if pkg.Name != label || pkg.Description != "first line\nsecond line" {
			t.Errorf("stored name %q, description %q", pkg.Name, pkg.Description)
		}
		if _, err := svc.AddSSHKey(ctx, owner.ID, bareKey, label); err != nil {
			t.Errorf("AddSSHKey: %v", err)
		}
		if _, _, err := svc.CreateToken(ctx, owner.ID, label, nil); err != nil {
			t.Errorf("CreateToken: %v", err)
		}
	})
}
