package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"filippo.io/torchwood"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pact-registry/pact/internal/gotooltest"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/witnesstest"
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
	t.Parallel()
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
var witnessProcs sync.Map // string → map[string]*witnesstest.Witness

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
	procs := map[string]*witnesstest.Witness{}
	var ws []*witnesstest.Witness
	for _, name := range []string{"w1", "w2"} {
		w, err := witnesstest.New(litewitness, env.WorkDir, name, sock, witnessOrigin, vkey)
		if err != nil {
			return err
		}
		if err := w.Start(); err != nil {
			return err
		}
		env.Defer(w.Stop)
		procs[name] = w
		ws = append(ws, w)
		env.Setenv(strings.ToUpper(name)+"_URL", w.URL)
	}
	policyFile := filepath.Join(env.WorkDir, "policy.txt")
	if err := os.WriteFile(policyFile, []byte(witnesstest.Policy(vkey, ws)), 0o644); err != nil {
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

func cmdWitness(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: witness stop|start NAME")
	}
	v, ok := witnessProcs.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("no witnesses for this script")
	}
	w := v.(map[string]*witnesstest.Witness)[args[1]]
	if w == nil {
		ts.Fatalf("no witness %q", args[1])
	}
	switch args[0] {
	case "stop":
		w.Stop()
	case "start":
		// The port was its own a moment ago; the kernel may hold it briefly.
		var err error
		for range 50 {
			if err = w.Start(); err == nil {
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
