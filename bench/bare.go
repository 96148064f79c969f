package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pact-registry/pact/server/sqlstore"
)

// The bare Go server: net/http serving the raw documents from memory, with
// nothing else (no router, log, metrics, request ids, deadlines). It is
// the ceiling for a Go server on this machine, run as a process of its own
// (the bench binary started again with bareEnv set) like nginx and pactd.

const bareEnv = "PACT_BENCH_BARE_GO"

// The bare Go server over SQLite: the same net/http handler, but each
// answer is read from the seeded database by the version's primary key,
// with nothing cached, on connections set up as pactd's readers
// (sqlstore.OpenSQLiteReaders). It is the ceiling for the rows whose
// working set is ten times pactd's cache, where most of pactd's answers are such reads
// (pactd's own miss finds the version through three index searches, then
// keeps the document). Its environment names the database and a file of
// the /raw/ paths it serves, one per line.
const (
	bareSQLiteEnv      = "PACT_BENCH_BARE_SQLITE"
	bareSQLitePathsEnv = "PACT_BENCH_BARE_SQLITE_PATHS"
)

// The bare Go server over files: net/http answering each request by
// opening the document's file under a directory and sending it with
// http.ServeContent (sendfile), with nothing cached. It is the ceiling for
// the row whose documents are in files (pactd --blobs file://...). Its
// environment names the directory (the one nginx serves).
const bareFilesEnv = "PACT_BENCH_BARE_FILES"

// bareSQLiteReaders is how many connections it reads with, as many as
// pactd's point reads.
const bareSQLiteReaders = 4

// serveBare is the child process: it loads every file under dir into
// memory, listens on a free loopback port, prints it and serves until
// SIGTERM.
func serveBare(dir string) error {
	docs := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		docs["/"+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		return err
	}
	lengths := map[string][]string{}
	for p, b := range docs {
		lengths[p] = []string{strconv.Itoa(len(b))}
	}
	return serveBareHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeMarkdown(w, b, lengths[r.URL.Path])
	}))
}

// serveBareFiles is the child process of the bare Go server over files.
func serveBareFiles(dir string) error {
	return serveBareHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(path.Clean("/"+r.URL.Path))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		w.Header()["Content-Type"] = markdownType
		http.ServeContent(w, r, "", time.Time{}, f)
	}))
}

// serveBareHandler serves handler on a free loopback port, printed first,
// until SIGTERM.
func serveBareHandler(handler http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("LISTEN %s\n", ln.Addr())
	srv := &http.Server{Handler: handler}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveBareSQLite is the child process of the bare Go server over SQLite:
// it looks up the latest version id of every path in pathsFile, then serves
// each request by one read of that row.
func serveBareSQLite(dbPath, pathsFile string) error {
	db, err := sqlstore.OpenSQLiteReaders(dbPath, bareSQLiteReaders)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := os.ReadFile(pathsFile)
	if err != nil {
		return err
	}
	byName, err := db.Prepare(`SELECT p.latest_version_id FROM packages p JOIN accounts a ON a.id = p.owner_id
WHERE a.username = ? AND p.pack_slug = ?`)
	if err != nil {
		return err
	}
	ids := map[string]int64{}
	for _, path := range strings.Fields(string(list)) {
		name, ok := strings.CutSuffix(strings.TrimPrefix(path, "/raw/"), ".pact.md")
		owner, pack, ok2 := strings.Cut(name, "/")
		if !ok || !ok2 {
			return fmt.Errorf("not a raw path: %q", path)
		}
		var id int64
		if err := byName.QueryRow(owner, pack).Scan(&id); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ids[path] = id
	}
	byName.Close()
	byID, err := db.Prepare(`SELECT content FROM versions WHERE id = ?`)
	if err != nil {
		return err
	}
	return serveBareHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := ids[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		var content []byte
		if err := byID.QueryRowContext(context.Background(), id).Scan(&content); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeMarkdown(w, content, []string{strconv.Itoa(len(content))})
	}))
}

var markdownType = []string{"text/markdown; charset=utf-8"}

// writeMarkdown answers a document with the two headers a bare server
// sends, set without canonicalizing (the header map is net/http's).
func writeMarkdown(w http.ResponseWriter, content []byte, length []string) {
	h := w.Header()
	h["Content-Type"] = markdownType
	h["Content-Length"] = length
	w.Write(content)
}

// bareServer is the running child.
type bareServer struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// startBare starts the bare Go server over the files under dir.
func startBare(ctx context.Context, dir string) (*bareServer, error) {
	return startBareWith(ctx, bareEnv+"="+dir)
}

// startBareFiles starts the bare Go server over the files under dir.
func startBareFiles(ctx context.Context, dir string) (*bareServer, error) {
	return startBareWith(ctx, bareFilesEnv+"="+dir)
}

// startBareSQLite starts the bare Go server over the SQLite database at
// dbPath, serving paths (written to pathsFile for it).
func startBareSQLite(ctx context.Context, dbPath, pathsFile string, paths []string) (*bareServer, error) {
	if err := os.WriteFile(pathsFile, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return startBareWith(ctx, bareSQLiteEnv+"="+dbPath, bareSQLitePathsEnv+"="+pathsFile)
}

// startBareWith runs this program again as a bare server, as env says.
func startBareWith(ctx context.Context, env ...string) (*bareServer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &bareServer{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
		s.done <- cmd.Wait()
	}()
	select {
	case line, ok := <-lines:
		addr, found := strings.CutPrefix(line, "LISTEN ")
		if !ok || !found {
			s.stop()
			return nil, fmt.Errorf("the bare Go server did not start: %q", line)
		}
		s.URL = "http://" + addr
		return s, nil
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("the bare Go server did not start within 30s")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

func (s *bareServer) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// writeDocs writes docs (path → content) as files under dir, for nginx and
// the bare Go server.
func writeDocs(dir string, docs map[string][]byte) error {
	for p, content := range docs {
		file := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
