// Package s3test runs a real S3-compatible server for tests: versitygw
// (github.com/versity/versitygw) on its posix backend, where each
// directory of its root is a bucket and each object a file. Tests skip
// without it, and fail in CI (gotooltest.Require), as with litewitness.
package s3test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/pact-registry/pact/internal/gotooltest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/server/blobs"
)

// Install is how to install the server the tests run.
const Install = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Server is one versitygw process, stopped when the test ends.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Creds    blobs.Credentials
	Root     string // the posix backend's directory: Root/bucket/key
	bin      string
	addr     string
	cmd      *exec.Cmd
	out      *syncbuf.Buffer
}

var buckets atomic.Int64

// Start starts versitygw on a free loopback port.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := gotooltest.Require(t, "versitygw", Install)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{Endpoint: "http://" + addr, Creds: blobs.Credentials{AccessKeyID: "pact-test", SecretAccessKey: "pact-test-secret"},
		Root: t.TempDir(), bin: bin, addr: addr}
	s.Start(t)
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Bucket makes a new bucket and answers its pactd --blobs URL, with a
// prefix.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("pact-%d", buckets.Add(1))
	if err := os.Mkdir(filepath.Join(s.Root, name), 0o755); err != nil {
		t.Fatal(err)
	}
	return "s3://" + name + "/docs?endpoint=" + s.Endpoint
}

// PublicRead lets anyone read the objects of bucket (its name, not its
// URL) without signing, as an operator makes a bucket public behind
// pactd's --blobs-public-url: a bucket policy, set through the S3 API,
// that allows s3:GetObject to every principal.
func (s *Server) PublicRead(t testing.TB, bucket string) {
	t.Helper()
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: s.Creds.AccessKeyID, SecretAccessKey: s.Creds.SecretAccessKey}, nil
		}),
	})
	policy := fmt.Sprintf(`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*",
  "Action": "s3:GetObject", "Resource": "arn:aws:s3:::%s/*"}]}`, bucket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := client.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(policy)}); err != nil {
		t.Fatalf("making bucket %s public: %v", bucket, err)
	}
}

// Object is the file that holds the object key of bucket.
func (s *Server) Object(bucket, key string) string { return filepath.Join(s.Root, bucket, key) }

// Start starts the server (again, after Stop) on its address, and waits
// until it accepts connections.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	s.out = new(syncbuf.Buffer)
	s.cmd = exec.Command(s.bin, "--port", s.addr, "posix", s.Root)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.Creds.AccessKeyID, "ROOT_SECRET_KEY="+s.Creds.SecretAccessKey)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s: %s", s.addr, strings.TrimSpace(s.out.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (SIGKILL, as a crash) and waits for it.
func (s *Server) Stop(t testing.TB) {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}
