// Package witnesstest runs real witnesses of pactd's log: litewitness
// processes (filippo.io/torchwood's C2SP tlog-witness server), with their
// keys in an ssh-agent, for the witness tests and the bench.
package witnesstest

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"filippo.io/torchwood"
	_ "github.com/mattn/go-sqlite3" // litewitness keeps its state in SQLite
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/pact-registry/pact/internal/syncbuf"
)

// Install is how litewitness is installed.
const Install = "go install filippo.io/torchwood/cmd/litewitness@v0.9.0"

// Witness is one litewitness process: its key is in an ssh-agent, its
// database knows the log.
type Witness struct {
	Name string // w1, w2, ...; it cosigns as NAME.witness.example
	URL  string // http://127.0.0.1:PORT
	VKey string // its cosignature verifier key, for a policy's witness line

	bin, db, addr, fingerprint, agent string

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *syncbuf.Buffer
	done chan struct{}
}

// New makes witness name, with a new ed25519 key added to the ssh-agent
// at agentSock and its database in dir; it knows the log origin (verifier
// key logVKey) from size 0 on. Start runs it.
func New(bin, dir, name, agentSock, origin, logVKey string) (*Witness, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial("unix", agentSock)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := agent.NewClient(conn).Add(agent.AddedKey{PrivateKey: priv, Comment: name}); err != nil {
		return nil, err
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	cosigner, err := torchwood.NewCosignatureSigner(name+".witness.example", priv)
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	w := &Witness{Name: name, URL: "http://" + addr, VKey: cosigner.Verifier().String(), bin: bin,
		db: filepath.Join(dir, name+".db"), addr: addr, fingerprint: ssh.FingerprintSHA256(sshPub), agent: agentSock}
	return w, w.knowLog(origin, logVKey)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// knowLog makes the witness's database know the log, as `witnessctl
// add-log` and `witnessctl add-key` do: litewitness's own schema, the log
// at size 0 (the empty tree's hash), its verifier key.
func (w *Witness) knowLog(origin, vkey string) error {
	db, err := sql.Open("sqlite3", w.db)
	if err != nil {
		return err
	}
	defer db.Close()
	empty := sha256.Sum256(nil)
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS log (origin TEXT PRIMARY KEY, tree_size INTEGER NOT NULL, tree_hash TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS key (origin TEXT NOT NULL, key TEXT NOT NULL, FOREIGN KEY(origin) REFERENCES log(origin))`,
		`CREATE TABLE IF NOT EXISTS bastion (origin TEXT NOT NULL, bastion TEXT NOT NULL, FOREIGN KEY(origin) REFERENCES log(origin))`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return err
		}
	}
	if _, err := db.Exec(`INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)`, origin,
		base64.StdEncoding.EncodeToString(empty[:])); err != nil {
		return err
	}
	_, err = db.Exec(`INSERT INTO key (origin, key) VALUES (?, ?)`, origin, vkey)
	return err
}

// Start runs litewitness (again) and waits until it listens.
func (w *Witness) Start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logs, w.done = &syncbuf.Buffer{}, make(chan struct{})
	w.cmd = exec.Command(w.bin, "-db", w.db, "-name", w.Name+".witness.example", "-key", w.fingerprint,
		"-ssh-agent", w.agent, "-listen", w.addr)
	w.cmd.Stdout, w.cmd.Stderr = w.logs, w.logs
	if err := w.cmd.Start(); err != nil {
		return err
	}
	done := w.done
	go func() { w.cmd.Wait(); close(done) }()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); {
		select {
		case <-done:
			return fmt.Errorf("litewitness %s exited:\n%s", w.Name, w.logs.String())
		default:
		}
		if conn, err := net.Dial("tcp", w.addr); err == nil {
			conn.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("litewitness %s did not listen on %s within 15s:\n%s", w.Name, w.addr, w.logs.String())
}

// Stop interrupts litewitness (it shuts down on SIGINT) and waits for it.
func (w *Witness) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd == nil {
		return
	}
	w.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		w.cmd.Process.Kill()
		<-w.done
	}
	w.cmd = nil
}

// Logs is what the running (or last) litewitness printed.
func (w *Witness) Logs() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.logs == nil {
		return ""
	}
	return w.logs.String()
}

// StartAgent starts an ssh-agent for the witnesses' keys, in a directory
// of its own ($WORK can be too long for a Unix socket path); stop kills it
// and removes the directory.
func StartAgent() (sock string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "pact-agent-")
	if err != nil {
		return "", nil, err
	}
	sock = filepath.Join(dir, "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop = func() {
		cmd.Process.Kill()
		<-exited
		os.RemoveAll(dir)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return sock, stop, nil
		}
		select {
		case <-exited:
			stop()
			return "", nil, errors.New("ssh-agent exited before listening")
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	return "", nil, errors.New("ssh-agent did not listen within 10s")
}

// Policy is the tlog-policy of the log logVKey and the witnesses, all of
// whom must cosign (quorum: a group of all of them).
func Policy(logVKey string, ws []*Witness) string {
	policy := "# The log and its witnesses; all must cosign.\nlog " + logVKey + "\n"
	group := fmt.Sprintf("group all %d", len(ws))
	for _, w := range ws {
		policy += fmt.Sprintf("witness %s %s %s\n", w.Name, w.VKey, w.URL)
		group += " " + w.Name
	}
	return policy + group + "\nquorum all\n"
}
