package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"filippo.io/torchwood"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for tampering with PostgreSQL
	_ "github.com/mattn/go-sqlite3"    // the "sqlite3" driver, for tampering with SQLite
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/mod/sumdb/note"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/translog"
)

// logServers holds each log script's pactd (by $WORK), for the commands
// that stop, tamper with and copy it.
var logServers sync.Map // string → *logScriptServer

type logScriptServer struct {
	mu      sync.Mutex
	srv     *pactdtest.Server
	bin     string
	backend string
	// newDB makes a fresh empty database of the backend (PostgreSQL), or
	// returns a file name in $WORK (SQLite).
	newDB func(name string) string
	// flags go to every pactd serve of the script (its restarts and copy).
	flags []string
}

// TestLogScripts runs testdata/logscript/*.txtar, the transparency log seen
// from the CLI, on SQLite and on PostgreSQL: each script gets what
// TestScripts gives (pactd at $SERVER_URL with an account alice, $TOKEN, an
// ssh-agent) plus the condition [sqlite] or [postgres] and these commands:
//
//	pactd-restart                  stop pactd and start it again on the same database and address
//	tamper [-bytes] [-live] OWNER PACK VERSION FILE
//	                               replace a version's bytes, sha256 and size in the database
//	                               (-bytes: its bytes only; -live: under the running pactd, whose
//	                               caches keep what they hold)
//	pactd-copy                     copy the database (pactd stopped meanwhile) and start a
//	                               second pactd on the copy at $COPY_URL
//	resign-proof FILE              sign the checkpoint of the offline proof FILE with a new
//	                               key of the log's name instead (the forger's key in $FORGED_KEY)
//	forge-proof FILE DOC           rewrite the offline proof FILE as one of a log of one entry, the
//	                               publish of DOC, keeping the genuine signature lines under the
//	                               checkpoint's changed body
//	sql STATEMENT...               run each statement on the database, as someone with access
//	                               to it would, pactd restarted around them (no cache survives)
func TestLogScripts(t *testing.T) {
	t.Parallel()
	bin := buildPactd(t)
	sshtest.Require(t, "ssh-agent", "ssh-add", "ssh-keygen", "curl")
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			if backend == "postgres" {
				storetest.RequirePostgres(t)
			}
			var mu sync.Mutex
			newDB := func(name string) string {
				mu.Lock()
				defer mu.Unlock()
				return storetest.PostgresURL(t)
			}
			testscript.Run(t, testscript.Params{
				Dir:                 "testdata/logscript",
				RequireExplicitExec: true,
				Setup: func(env *testscript.Env) error {
					ls := &logScriptServer{bin: bin, backend: backend, newDB: newDB}
					db := filepath.Join(env.WorkDir, "pact.db")
					if backend == "postgres" {
						db = newDB("main")
					} else {
						ls.newDB = func(name string) string { return filepath.Join(env.WorkDir, name+".db") }
					}
					srv, err := pactdtest.StartDB(bin, db)
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
				},
				Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
					"json":          cmdJSON,
					"jsonenv":       cmdJSONEnv,
					"exitcode":      cmdExitCode,
					"pactd-restart": cmdPactdRestart,
					"tamper":        cmdTamper,
					"pactd-copy":    cmdPactdCopy,
					"resign-proof":  cmdResignProof,
					"forge-proof":   cmdForgeProof,
					"sql":           cmdSQL,
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

func scriptServer(ts *testscript.TestScript) *logScriptServer {
	v, ok := logServers.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("no pactd for this script")
	}
	return v.(*logScriptServer)
}

// restart stops pactd and starts it on db at the same address.
func (ls *logScriptServer) restart(ts *testscript.TestScript, between func(db string)) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ts.Check(ls.srv.Stop())
	if between != nil {
		between(ls.srv.DB)
	}
	addr := ls.srv.Addr()
	var srv *pactdtest.Server
	var err error
	// The port was ours a moment ago; give the kernel a moment to free it.
	for range 50 {
		if srv, err = pactdtest.StartDBAt(ls.bin, ls.srv.DB, addr, ls.flags...); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Check(err)
	ls.srv = srv
}

func cmdPactdRestart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: pactd-restart")
	}
	scriptServer(ts).restart(ts, nil)
}

func cmdResignProof(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: resign-proof FILE")
	}
	path := ts.MkAbs(args[0])
	proof := ts.ReadFile(args[0])
	// The checkpoint follows the proof's first empty line; its note text
	// ends at the note's own empty line.
	head, checkpoint, ok := strings.Cut(proof, "\n\n")
	text, _, ok2 := strings.Cut(checkpoint, "\n\n")
	if !ok || !ok2 {
		ts.Fatalf("%s holds no checkpoint", args[0])
	}
	origin, _, _ := strings.Cut(text, "\n")
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	ts.Check(err)
	signer, err := note.NewSigner(skey)
	ts.Check(err)
	signed, err := note.Sign(&note.Note{Text: text + "\n"}, signer)
	ts.Check(err)
	ts.Check(os.WriteFile(path, []byte(head+"\n\n"+string(signed)), 0o644))
	ts.Setenv("FORGED_KEY", vkey)
}

func cmdForgeProof(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: forge-proof FILE DOC")
	}
	proof := ts.ReadFile(args[0])
	doc := []byte(ts.ReadFile(args[1]))
	entry, err := torchwood.ProofExtraData([]byte(proof))
	ts.Check(err)
	parsed, err := translog.Parse(entry)
	ts.Check(err)
	ev, err := parsed.Publish()
	ts.Check(err)
	sum := sha256.Sum256(doc)
	ev.SHA256, ev.Size = hex.EncodeToString(sum[:]), int64(len(doc))
	forged := translog.NewPublish(ev).Marshal()
	_, checkpoint, ok := strings.Cut(proof, "\n\n")
	text, sigs, ok2 := strings.Cut(checkpoint, "\n\n")
	if !ok || !ok2 {
		ts.Fatalf("%s holds no checkpoint", args[0])
	}
	origin, _, _ := strings.Cut(text, "\n")
	// A tree of one entry: its root is the entry's record hash, and the
	// proof of index 0 has no hashes.
	root := translog.RecordHash(forged)
	out := "c2sp.org/tlog-proof@v1\nextra " + base64.StdEncoding.EncodeToString(forged) + "\nindex 0\n\n" +
		origin + "\n1\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n\n" + sigs
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(out), 0o644))
}

// cmdTamper rewrites a version in the database as an intruder would: new
// bytes with their own sha256 and size, so the registry's answers agree
// with each other and only the log can tell. pactd is restarted around it,
// so no cache of the old bytes survives. With -bytes only the bytes change,
// so they disagree with the registry's own sha256; with -live pactd keeps
// running, and what its caches hold disagrees with the database.
func cmdTamper(ts *testscript.TestScript, neg bool, args []string) {
	// -bytes leaves the registry's sha256 and size as they were; -live
	// edits under the running pactd, whose caches keep what they hold.
	bytesOnly, live := false, false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-bytes":
			bytesOnly = true
		case "-live":
			live = true
		default:
			ts.Fatalf("tamper: unknown flag %s", args[0])
		}
		args = args[1:]
	}
	if neg || len(args) != 4 {
		ts.Fatalf("usage: tamper [-bytes] [-live] OWNER PACK VERSION FILE")
	}
	content := []byte(ts.ReadFile(args[3]))
	sum := sha256.Sum256(content)
	digest := hex.EncodeToString(sum[:])
	ls := scriptServer(ts)
	edit := func(db string) {
		driver, dsn, ph := "sqlite3", db, func(i int) string { return "?" }
		if ls.backend == "postgres" {
			driver, ph = "pgx", func(i int) string { return fmt.Sprintf("$%d", i) }
		}
		conn, err := sql.Open(driver, dsn)
		ts.Check(err)
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// where names the version by its placeholders first, first+1, first+2.
		where := func(first int) string {
			return fmt.Sprintf(`WHERE version = %s AND package_id = (SELECT p.id FROM packages p JOIN accounts a ON a.id = p.owner_id
			WHERE a.username = %s AND p.pack_slug = %s)`, ph(first), ph(first+1), ph(first+2))
		}
		var res sql.Result
		if bytesOnly {
			res, err = conn.ExecContext(ctx, fmt.Sprintf(`UPDATE versions SET content = %s `, ph(1))+where(2),
				content, args[2], args[0], args[1])
		} else {
			res, err = conn.ExecContext(ctx, fmt.Sprintf(`UPDATE versions SET content = %s, sha256 = %s, size = %s `, ph(1), ph(2), ph(3))+where(4),
				content, digest, len(content), args[2], args[0], args[1])
		}
		ts.Check(err)
		if n, _ := res.RowsAffected(); n != 1 {
			ts.Fatalf("tamper: %d versions changed, want 1", n)
		}
		if bytesOnly {
			return
		}
		_, err = conn.ExecContext(ctx, fmt.Sprintf(`UPDATE packages SET sha256 = %s WHERE version = %s AND pack_slug = %s`, ph(1), ph(2), ph(3)),
			digest, args[2], args[1])
		ts.Check(err)
	}
	if live {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		edit(ls.srv.DB)
		return
	}
	ls.restart(ts, edit)
}

// cmdSQL changes the database behind the registry's back, as an intruder
// (or a careless operator) with access to it would: the statements are
// plain SQL that both engines take.
func cmdSQL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: sql STATEMENT...")
	}
	ls := scriptServer(ts)
	ls.restart(ts, func(db string) {
		driver := "sqlite3"
		if ls.backend == "postgres" {
			driver = "pgx"
		}
		conn, err := sql.Open(driver, db)
		ts.Check(err)
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, stmt := range args {
			res, err := conn.ExecContext(ctx, stmt)
			if err != nil {
				ts.Fatalf("sql %s: %v", stmt, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				ts.Fatalf("sql %s: no row changed", stmt)
			}
		}
	})
}

// cmdPactdCopy copies the script's database (and a SQLite database's
// blob directory) while pactd is stopped and starts a second pactd on the
// copy, at $COPY_URL: the same log, key and
// accounts, from then on free to diverge.
func cmdPactdCopy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: pactd-copy")
	}
	ls := scriptServer(ts)
	var copyDB string
	ls.restart(ts, func(db string) {
		copyDB = ls.newDB("copy")
		if ls.backend == "postgres" {
			// CREATE DATABASE ... TEMPLATE copies a database nobody is
			// connected to: pactd is stopped, and this session uses another.
			dst, err := url.Parse(copyDB)
			ts.Check(err)
			src, err := url.Parse(db)
			ts.Check(err)
			adminURL := *src
			adminURL.Path = "/postgres"
			admin, err := sql.Open("pgx", adminURL.String())
			ts.Check(err)
			defer admin.Close()
			_, err = admin.Exec(`DROP DATABASE "` + strings.TrimPrefix(dst.Path, "/") + `"`)
			ts.Check(err)
			_, err = admin.Exec(`CREATE DATABASE "` + strings.TrimPrefix(dst.Path, "/") + `" TEMPLATE "` + strings.TrimPrefix(src.Path, "/") + `"`)
			ts.Check(err)
			return
		}
		data, err := os.ReadFile(db)
		ts.Check(err)
		ts.Check(os.WriteFile(copyDB, data, 0o600))
		// A SQLite registry's documents are in the directory beside its
		// database (docs/operations.md, Blob store): a copy has them too.
		if _, err := os.Stat(db + ".blobs"); err == nil {
			ts.Check(os.CopyFS(copyDB+".blobs", os.DirFS(db+".blobs")))
		}
	})
	srv, err := pactdtest.StartDB(ls.bin, copyDB, ls.flags...)
	ts.Check(err)
	ts.Defer(func() { srv.Stop() })
	ts.Setenv("COPY_URL", srv.URL)
}
