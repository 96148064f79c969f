package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"filippo.io/torchwood"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/pact-registry/pact/internal/gotooltest"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/pkg/translog"
)

// witnessOrigin names the log of every witness script: its key is made
// before pactd starts (--log-key-file), so the witnesses and the policy
// know it from the start.
const witnessOrigin = "witness-test.example/log"

// requireLitewitness answers the path of litewitness (filippo.io/torchwood's
// C2SP tlog-witness server); without it the test skips, or fails in CI.
func requireLitewitness(t *testing.T) string {
	t.Helper()
	return gotooltest.Require(t, "litewitness", "go install filippo.io/torchwood/cmd/litewitness@v0.9.0")
}

// TestWitnessScripts runs testdata/witness/*.txtar, the transparency log's
// witnesses end to end, on SQLite and on PostgreSQL: two real litewitness
// processes, w1 and w2, that know the log, and pactd pushing to them under
// $WORK/policy.txt (quorum: both). Each script gets what TestLogScripts
// gives (pactd at $SERVER_URL with --log-key-file $WORK/log.key and
// --witness-policy $WORK/policy.txt, alice, $TOKEN, pactd-restart,
// pactd-copy), $LOG_VKEY, $W1_URL, $W2_URL, and these commands:
//
//	witness stop|start NAME        stop (SIGINT) or start again w1 or w2, on its address and database
//	witnessed-within DURATION N [URL]  poll URL/log/checkpoint ($SERVER_URL by default) until it
//	                               covers N entries, failing after DURATION; every checkpoint
//	                               served must be accepted by torchwood.VerifyCheckpoint under
//	                               $WORK/policy.txt (503: none witnessed yet); prints
//	                               "witnessed SIZE entries"
//	readyz-until DURATION PATH VALUE [URL]  poll URL/readyz until PATH of its JSON is VALUE
//	                               (as json prints it); the answer stays in $WORK/readyz.json
//	pactd-logged DURATION REGEXP   wait until what pactd logged matches REGEXP
//	pactd-flags FLAG...            restart pactd with these serve flags instead
//	pactd-replica                  start a second pactd on the same database, at $REPLICA_URL
func TestWitnessScripts(t *testing.T) {
	bin := buildPactd(t)
	litewitness := requireLitewitness(t)
	sshtest.Require(t, "ssh-agent", "ssh-add", "ssh-keygen", "curl")
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "postgres" {
				storetest.RequirePostgres(t)
			}
			var mu sync.Mutex
			newDB := func(string) string {
				mu.Lock()
				defer mu.Unlock()
				return storetest.PostgresURL(t)
			}
			testscript.Run(t, testscript.Params{
				Dir:                 "testdata/witness",
				RequireExplicitExec: true,
				Setup: func(env *testscript.Env) error {
					return setupWitnessScript(env, bin, litewitness, backend, newDB)
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"json":             cmdJSON,
					"jsonenv":          cmdJSONEnv,
					"exitcode":         cmdExitCode,
					"pactd-restart":    cmdPactdRestart,
					"pactd-copy":       cmdPactdCopy,
					"pactd-flags":      cmdPactdFlags,
					"pactd-replica":    cmdPactdReplica,
					"witness":          cmdWitness,
					"witnessed-within": cmdWitnessedWithin,
					"readyz-until":     cmdReadyzUntil,
					"pactd-logged":     cmdPactdLogged,
				},
				Condition: func(cond string) (bool, error) {
					switch cond {
					case "sqlite", "postgres":
						return cond == backend, nil
					}
					return false, fmt.Errorf("unknown condition %q", cond)
				},
			})
		})
	}
}

// witnessProcs holds each witness script's litewitness processes (by $WORK).
var witnessProcs sync.Map // string → map[string]*witnessProc

// witnessProc is one litewitness: its key is in an ssh-agent of its own
// script, its database knows the log.
type witnessProc struct {
	bin, name, db, addr, fingerprint, agent string
	vkey                                    string

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs *syncbuf.Buffer
	done chan struct{}
}

func setupWitnessScript(env *testscript.Env, bin, litewitness, backend string, newDB func(string) string) error {
	signer, vkey, err := translog.GenerateKey(rand.Reader, witnessOrigin)
	if err != nil {
		return err
	}
	keyFile := filepath.Join(env.WorkDir, "log.key")
	if err := os.WriteFile(keyFile, []byte(signer+"\n"), 0o600); err != nil {
		return err
	}
	sock, err := startAgent(env)
	if err != nil {
		return err
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return err
	}
	defer conn.Close()
	keyring := agent.NewClient(conn)

	procs := map[string]*witnessProc{}
	policy := "# The log and its two witnesses; both must cosign.\nlog " + vkey + "\n"
	for _, name := range []string{"w1", "w2"} {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		if err := keyring.Add(agent.AddedKey{PrivateKey: priv, Comment: name}); err != nil {
			return err
		}
		sshPub, err := ssh.NewPublicKey(pub)
		if err != nil {
			return err
		}
		cosigner, err := torchwood.NewCosignatureSigner(name+".witness.example", priv)
		if err != nil {
			return err
		}
		w := &witnessProc{bin: litewitness, name: name, db: filepath.Join(env.WorkDir, name+".db"),
			addr: freeAddr(), fingerprint: ssh.FingerprintSHA256(sshPub), agent: sock, vkey: cosigner.Verifier().String()}
		if err := w.knowLog(vkey); err != nil {
			return err
		}
		if err := w.start(); err != nil {
			return err
		}
		env.Defer(func() { w.stop() })
		procs[name] = w
		env.Setenv(strings.ToUpper(name)+"_URL", "http://"+w.addr)
		policy += fmt.Sprintf("witness %s %s http://%s\n", name, w.vkey, w.addr)
	}
	policy += "group both 2 w1 w2\nquorum both\n"
	policyFile := filepath.Join(env.WorkDir, "policy.txt")
	if err := os.WriteFile(policyFile, []byte(policy), 0o644); err != nil {
		return err
	}
	witnessProcs.Store(env.WorkDir, procs)
	env.Setenv("LOG_VKEY", vkey)

	ls := &logScriptServer{bin: bin, backend: backend, newDB: newDB,
		flags: []string{"--log-key-file", keyFile, "--witness-policy", policyFile}}
	db := filepath.Join(env.WorkDir, "pact.db")
	if backend == "postgres" {
		db = newDB("main")
	} else {
		ls.newDB = func(name string) string { return filepath.Join(env.WorkDir, name+".db") }
	}
	srv, err := pactdtest.StartDB(bin, db, ls.flags...)
	if err != nil {
		return err
	}
	ls.srv = srv
	logServers.Store(env.WorkDir, ls)
	env.Defer(func() {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		if err := ls.srv.Stop(); err != nil {
			env.T().Log(err)
		}
	})
	return setupScriptOn(env, srv)
}

// freeAddr answers a loopback address no one listens on (a moment ago).
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// knowLog makes the witness's database know the log, as `witnessctl
// add-log` and `witnessctl add-key` do: litewitness's own schema, the log
// at size 0 (the empty tree's hash), its verifier key.
func (w *witnessProc) knowLog(vkey string) error {
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
	if _, err := db.Exec(`INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)`, witnessOrigin,
		base64.StdEncoding.EncodeToString(empty[:])); err != nil {
		return err
	}
	_, err = db.Exec(`INSERT INTO key (origin, key) VALUES (?, ?)`, witnessOrigin, vkey)
	return err
}

// start runs litewitness and waits until it listens.
func (w *witnessProc) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.logs, w.done = &syncbuf.Buffer{}, make(chan struct{})
	w.cmd = exec.Command(w.bin, "-db", w.db, "-name", w.name+".witness.example", "-key", w.fingerprint,
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
			return fmt.Errorf("litewitness %s exited:\n%s", w.name, w.logs.String())
		default:
		}
		if conn, err := net.Dial("tcp", w.addr); err == nil {
			conn.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("litewitness %s did not listen on %s within 15s:\n%s", w.name, w.addr, w.logs.String())
}

// stop interrupts litewitness (it shuts down on SIGINT) and waits for it.
func (w *witnessProc) stop() {
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

func cmdWitness(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: witness stop|start NAME")
	}
	v, ok := witnessProcs.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("no witnesses for this script")
	}
	w := v.(map[string]*witnessProc)[args[1]]
	if w == nil {
		ts.Fatalf("no witness %q", args[1])
	}
	switch args[0] {
	case "stop":
		w.stop()
	case "start":
		// The port was its own a moment ago; the kernel may hold it briefly.
		var err error
		for range 50 {
			if err = w.start(); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		ts.Fatalf("%v", err)
	default:
		ts.Fatalf("usage: witness stop|start NAME")
	}
}

// cmdWitnessedWithin waits for a checkpoint of at least N entries and
// checks it with torchwood alone: the witness policy of the script's file,
// parsed by torchwood.ParsePolicy, must accept it (torchwood.VerifyCheckpoint).
func cmdWitnessedWithin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: witnessed-within DURATION N [URL]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	want, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	base := ts.Getenv("SERVER_URL")
	if len(args) == 3 {
		base = args[2]
	}
	policy, err := torchwood.ParsePolicy([]byte(ts.ReadFile("policy.txt")))
	ts.Check(err)
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	for {
		resp, err := client.Get(base + "/log/checkpoint")
		ts.Check(err)
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		ts.Check(err)
		size := int64(-1) // none witnessed yet: 503
		switch resp.StatusCode {
		case http.StatusOK:
			c, _, err := torchwood.VerifyCheckpoint(body, policy)
			if err != nil {
				ts.Fatalf("torchwood.VerifyCheckpoint under policy.txt: %v\n%s", err, body)
			}
			size = c.N
		case http.StatusServiceUnavailable:
		default:
			ts.Fatalf("GET %s/log/checkpoint: %d %s", base, resp.StatusCode, body)
		}
		if size >= want {
			fmt.Fprintf(ts.Stdout(), "witnessed %d entries\n", size)
			return
		}
		if took := time.Since(start); took > limit {
			ts.Fatalf("after %s, the checkpoint the witnesses cosigned covers %d entries, not %d (%d %s)", took.Round(time.Millisecond), size, want, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdReadyzUntil polls URL/readyz until the value at PATH of its JSON is
// VALUE (as the json command prints it), failing after DURATION; the last
// answer stays in $WORK/readyz.json.
func cmdReadyzUntil(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: readyz-until DURATION PATH VALUE [URL]")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	base := ts.Getenv("SERVER_URL")
	if len(args) == 4 {
		base = args[3]
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for start := time.Now(); ; {
		resp, err := client.Get(base + "/readyz")
		ts.Check(err)
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs("readyz.json"), body, 0o644))
		got := "<absent>"
		if v, ok := jsonLookup(ts, "readyz.json", args[1]); ok {
			got = jsonText(v)
		}
		if got == args[2] {
			return
		}
		if time.Since(start) > limit {
			ts.Fatalf("after %s, /readyz has %s = %q, not %q:\n%s", limit, args[1], got, args[2], body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdPactdLogged waits until what pactd logged matches REGEXP (its lines
// reach stderr within 100 ms), failing after DURATION.
func cmdPactdLogged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pactd-logged DURATION REGEXP")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	ls := scriptServer(ts)
	for start := time.Now(); ; {
		ls.mu.Lock()
		logs := ls.srv.Logs()
		ls.mu.Unlock()
		if re.MatchString(logs) {
			return
		}
		if time.Since(start) > limit {
			ts.Fatalf("after %s, pactd has logged nothing matching %s:\n%s", limit, args[1], logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdPactdFlags restarts pactd with other serve flags.
func cmdPactdFlags(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: pactd-flags FLAG...")
	}
	ls := scriptServer(ts)
	ls.mu.Lock()
	ls.flags = append([]string(nil), args...)
	ls.mu.Unlock()
	ls.restart(ts, nil)
}

// cmdPactdReplica starts a second pactd on the script's database (a
// PostgreSQL replica), with the same flags.
func cmdPactdReplica(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: pactd-replica")
	}
	ls := scriptServer(ts)
	srv, err := pactdtest.StartDB(ls.bin, ls.srv.DB, ls.flags...)
	ts.Check(err)
	ts.Defer(func() { srv.Stop() })
	ts.Setenv("REPLICA_URL", srv.URL)
}
