package sshsign_test

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"golang.org/x/crypto/ssh"
)

// sharedKeyDir holds the keys every test of this binary shares: RSA keys take
// seconds to generate, so each is made once.
var sharedKeyDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sshsign-keys-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedKeyDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testKey is a key pair made by ssh-keygen.
type testKey struct {
	privPath, pubPath string
	line              string // authorized_keys line with comment
	pub               ssh.PublicKey
	signer            ssh.Signer
}

type cachedKey struct {
	once sync.Once
	key  *testKey
}

var keyCache sync.Map // "type/bits" → *cachedKey

// sharedKey returns the test binary's one key of this type and size, making
// it with ssh-keygen on first use. Tests that need a second, different key of
// the same kind use newKey.
func sharedKey(tb testing.TB, typ string, bits int) *testKey {
	tb.Helper()
	sshtest.Require(tb, "ssh-keygen")
	entry, _ := keyCache.LoadOrStore(fmt.Sprintf("%s/%d", typ, bits), &cachedKey{})
	cached := entry.(*cachedKey)
	cached.once.Do(func() { cached.key = newKey(tb, sharedKeyDir, typ, bits) })
	if cached.key == nil {
		tb.Fatalf("making the shared %s/%d key failed in another test", typ, bits)
	}
	return cached.key
}

// newKey makes a fresh key pair in dir.
func newKey(tb testing.TB, dir, typ string, bits int) *testKey {
	tb.Helper()
	return keyFromFiles(tb, func(string) (string, string) { return sshtest.GenerateKey(tb, dir, typ, bits) })
}

// keyFromFiles reads the key pair that write puts into a fresh directory.
func keyFromFiles(tb testing.TB, write func(dir string) (privPath, pubPath string)) *testKey {
	tb.Helper()
	privPath, pubPath := write(tb.TempDir())
	line := sshtest.PublicKeyLine(tb, pubPath)
	pub, _, err := sshsign.ParseAuthorizedKey(line)
	if err != nil {
		tb.Fatalf("parsing the key ssh-keygen made: %v", err)
	}
	pem, err := os.ReadFile(privPath)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		tb.Fatalf("parsing the private key ssh-keygen made: %v", err)
	}
	return &testKey{privPath: privPath, pubPath: pubPath, line: line, pub: pub, signer: signer}
}

// keyKinds are the accepted key kinds the interop tests cover.
var keyKinds = []struct {
	name string
	typ  string
	bits int
}{
	{"ed25519", "ed25519", 0},
	{"rsa-2048", "rsa", 2048},
	{"rsa-3072", "rsa", 3072},
	{"rsa-4096", "rsa", 4096},
}

// testMessage builds a message the way a client does, failing tb on error.
func testMessage(tb testing.TB, description string) []byte {
	tb.Helper()
	msg, err := sshsign.Message(1767225600, "n0nce-0123456789abcdef", []byte("# A pack\n\n```yaml pact:pack\nname: demo\n```\n"), "demo", description)
	if err != nil {
		tb.Fatal(err)
	}
	return msg
}
