// Package witness is pactd's client of transparency log witnesses: the
// add-checkpoint call of C2SP tlog-witness, over HTTP. The registry's
// domain decides what to send and what an answer means
// (server/registry/witness.go); this package only carries it, bounded.
package witness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/server/registry"
)

// Bounds on a witness: an answer is a few signature lines (or a size, or an
// error message), so 64 KiB is far more than any witness sends, and a
// witness that does not answer within Timeout counts as failing.
const (
	maxAnswerBytes = 64 << 10
	DefaultTimeout = 5 * time.Second
)

// Client posts checkpoints to witnesses.
type Client struct {
	http      *http.Client
	userAgent string
}

var _ registry.WitnessClient = (*Client)(nil)

// New returns a client whose every request ends within timeout
// (DefaultTimeout when 0); userAgent names pactd to the witnesses.
func New(timeout time.Duration, userAgent string) *Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 2
	transport.ResponseHeaderTimeout = timeout
	return &Client{
		http: &http.Client{
			Timeout:   timeout,
			Transport: transport,
			// An add-checkpoint is answered, not redirected: a redirect is
			// a misconfigured URL, reported as the 3xx it is.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: userAgent,
	}
}

// AddCheckpoint posts "old N", the proof's hashes, a blank line and the
// signed checkpoint to url/add-checkpoint; see registry.WitnessClient.
func (c *Client) AddCheckpoint(ctx context.Context, prefix string, oldSize int64, proof tlog.TreeProof, signed []byte) ([]byte, error) {
	var body bytes.Buffer
	fmt.Fprintf(&body, "old %d\n", oldSize)
	for _, h := range proof {
		body.WriteString(h.String() + "\n")
	}
	body.WriteString("\n")
	body.Write(signed)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, prefix+"/add-checkpoint", &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is the witness's, said beside the error
		}
		return nil, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading its answer: %w", err)
	}
	if len(answer) > maxAnswerBytes {
		return nil, fmt.Errorf("it answered %d with more than %d bytes", resp.StatusCode, maxAnswerBytes)
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return answer, nil
	case http.StatusConflict:
		// C2SP tlog-witness: the size it last cosigned, in decimal, and a
		// newline, as text/x.tlog.size.
		text, ok := strings.CutSuffix(string(answer), "\n")
		size, err := strconv.ParseInt(text, 10, 64)
		if ok && err == nil && size >= 0 && strconv.FormatInt(size, 10) == text {
			return nil, &registry.WitnessConflict{Size: size}
		}
	}
	return nil, &registry.WitnessRefusal{Status: resp.StatusCode, Message: clip.Text(strings.TrimSpace(string(answer)), 200)}
}
