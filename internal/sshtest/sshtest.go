// Package sshtest runs the real OpenSSH tools for tests: it makes keys with
// ssh-keygen, starts ssh-agent, and signs and verifies with ssh-keygen -Y.
//
// When a tool is missing, a test is skipped, except when the environment
// variable CI is "true": there the missing tool fails the test, so CI can
// never pass by skipping.
package sshtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// agentStartTimeout bounds the wait for a fresh ssh-agent's socket.
const agentStartTimeout = 10 * time.Second

// keyCounter keeps key file names unique within one directory.
var keyCounter atomic.Int64

// Require skips (or, in CI, fails) tb when any of the named programs is not
// on PATH.
func Require(tb testing.TB, programs ...string) {
	tb.Helper()
	for _, program := range programs {
		if _, err := exec.LookPath(program); err != nil {
			if os.Getenv("CI") == "true" {
				tb.Fatalf("%s is required in CI: %v", program, err)
			}
			tb.Skipf("%s is not installed: %v", program, err)
		}
	}
}

// GenerateKey makes a key pair with ssh-keygen in dir, without passphrase,
// and returns the paths of its private and public halves. bits 0 lets
// ssh-keygen choose. The key's comment is "pact-test-TYPE".
func GenerateKey(tb testing.TB, dir, typ string, bits int) (privPath, pubPath string) {
	tb.Helper()
	Require(tb, "ssh-keygen")
	privPath = filepath.Join(dir, fmt.Sprintf("id_%s_%d_%d", typ, bits, keyCounter.Add(1)))
	args := []string{"-q", "-t", typ, "-N", "", "-C", "pact-test-" + typ, "-f", privPath}
	if bits > 0 {
		args = append(args, "-b", strconv.Itoa(bits))
	}
	run(tb, nil, "ssh-keygen", args...)
	return privPath, privPath + ".pub"
}

// PublicKeyLine returns the authorized_keys line of the public key at pubPath,
// comment included, without the trailing newline.
func PublicKeyLine(tb testing.TB, pubPath string) string {
	tb.Helper()
	data, err := os.ReadFile(pubPath)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// KeygenFingerprint returns the SHA256 fingerprint `ssh-keygen -lf` prints
// for the key at pubPath.
func KeygenFingerprint(tb testing.TB, pubPath string) string {
	tb.Helper()
	Require(tb, "ssh-keygen")
	out := run(tb, nil, "ssh-keygen", "-E", "sha256", "-lf", pubPath)
	// "BITS SHA256:... COMMENT (TYPE)"
	fields := strings.Fields(out)
	if len(fields) < 2 {
		tb.Fatalf("unexpected ssh-keygen -lf output %q", out)
	}
	return fields[1]
}

// StartAgent starts a private ssh-agent for the test and returns its socket.
// The agent is killed when the test ends.
func StartAgent(tb testing.TB) (sock string) {
	tb.Helper()
	Require(tb, "ssh-agent")
	// t.TempDir paths can exceed the ~104-byte limit of a Unix socket path.
	dir, err := os.MkdirTemp("", "pact-agent-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	sock = filepath.Join(dir, "agent.sock")

	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	cmd.Env = environWithout("SSH_AUTH_SOCK", "SSH_AGENT_PID")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting ssh-agent: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	deadline := time.Now().Add(agentStartTimeout)
	for {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			conn.Close()
			return sock
		}
		select {
		case err := <-exited:
			exited <- err // let the cleanup's receive return
			tb.Fatalf("ssh-agent exited before listening: %v: %s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("ssh-agent did not listen on %s within %s: %s", sock, agentStartTimeout, stderr.String())
		}
	}
}

// AddKey loads the private key at privPath into the agent listening on sock.
func AddKey(tb testing.TB, sock, privPath string) {
	tb.Helper()
	Require(tb, "ssh-add")
	env := append(environWithout("SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "DISPLAY"), "SSH_AUTH_SOCK="+sock)
	run(tb, env, "ssh-add", "-q", privPath)
}

// SignWithKeygen signs message with `ssh-keygen -Y sign -n namespace -f
// privPath` and returns the armored signature. extraArgs go before the file,
// e.g. "-O", "hashalg=sha256".
func SignWithKeygen(tb testing.TB, privPath string, message []byte, namespace string, extraArgs ...string) string {
	tb.Helper()
	Require(tb, "ssh-keygen")
	msgPath := filepath.Join(tb.TempDir(), "message")
	if err := os.WriteFile(msgPath, message, 0o600); err != nil {
		tb.Fatal(err)
	}
	args := append([]string{"-Y", "sign", "-n", namespace, "-f", privPath}, extraArgs...)
	args = append(args, msgPath)
	run(tb, environWithout("SSH_AUTH_SOCK"), "ssh-keygen", args...)
	sig, err := os.ReadFile(msgPath + ".sig")
	if err != nil {
		tb.Fatal(err)
	}
	return string(sig)
}

// VerifyWithKeygen runs `ssh-keygen -Y verify` on signature over message,
// allowing only the key in publicKeyLine ("type base64 [comment]"). It returns
// nil when ssh-keygen accepts the signature, else an error with its output.
func VerifyWithKeygen(tb testing.TB, publicKeyLine string, message []byte, signature, namespace string) error {
	tb.Helper()
	Require(tb, "ssh-keygen")
	dir := tb.TempDir()
	const identity = "signer@pact.test"
	allowed := filepath.Join(dir, "allowed_signers")
	sigPath := filepath.Join(dir, "message.sig")
	if err := os.WriteFile(allowed, []byte(identity+" "+strings.TrimSpace(publicKeyLine)+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(sigPath, []byte(signature), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", identity, "-n", namespace, "-s", sigPath)
	cmd.Stdin = bytes.NewReader(message)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			tb.Fatalf("running ssh-keygen -Y verify: %v", err)
		}
		return fmt.Errorf("ssh-keygen -Y verify refused the signature: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// run runs a program and fails tb with its output if it does not succeed.
func run(tb testing.TB, env []string, program string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %s: %v: %s", program, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// environWithout returns the process environment minus the named variables.
func environWithout(names ...string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, name := range names {
			if strings.HasPrefix(kv, name+"=") {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}
